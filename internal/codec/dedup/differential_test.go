package dedup

import (
	"math/rand"
	"reflect"
	"sort"
	"strconv"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/equality"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubego/kubego/scheme"
)

type protoMessage interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// apiTypes returns every registered built-in struct type with protobuf
// methods, and the metadata-only types, sorted by name.
func apiTypes(t testing.TB) []reflect.Type {
	seen := map[reflect.Type]bool{}
	var out []reflect.Type
	all := []reflect.Type{reflect.TypeFor[metav1.PartialObjectMetadata](), reflect.TypeFor[metav1.PartialObjectMetadataList]()}
	for _, typ := range scheme.Default().AllKnownTypes() {
		all = append(all, typ)
	}
	for _, typ := range all {
		if seen[typ] || typ.Kind() != reflect.Struct || !reflect.PointerTo(typ).Implements(reflect.TypeFor[protoMessage]()) {
			continue
		}
		seen[typ] = true
		out = append(out, typ)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	if len(out) < 100 {
		t.Fatalf("only %d protobuf types registered", len(out))
	}
	return out
}

// decodeFresh decodes b into a new value of typ with the generated
// decoder: every string and map is freshly allocated, as a watch's would be.
func decodeFresh(t testing.TB, typ reflect.Type, b []byte) any {
	t.Helper()
	obj := reflect.New(typ).Interface()
	if err := obj.(protoMessage).Unmarshal(b); err != nil {
		t.Fatalf("%s: unmarshal: %v", typ, err)
	}
	return obj
}

// perObjectAliases returns the paths of the ObjectMeta fields that must
// stay each object's own (name, uid, resourceVersion, selfLink) and yet
// point to the same bytes in a and b, two values of one type decoded
// separately from the same bytes. Strings of one byte are left out: Go
// allocates none for them.
func perObjectAliases(a, b any) []string {
	var out []string
	var walk func(path string, x, y reflect.Value)
	walk = func(path string, x, y reflect.Value) {
		switch x.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !x.IsNil() && !y.IsNil() {
				walk(path, x.Elem(), y.Elem())
			}
		case reflect.Struct:
			if x.Type() == objectMetaTyp {
				for name := range perObject {
					xs, ys := x.FieldByName(name).String(), y.FieldByName(name).String()
					if len(xs) > 1 && len(xs) == len(ys) && unsafe.StringData(xs) == unsafe.StringData(ys) {
						out = append(out, path+"."+name)
					}
				}
			}
			for i := range x.NumField() {
				if x.Type().Field(i).IsExported() {
					walk(path+"."+x.Type().Field(i).Name, x.Field(i), y.Field(i))
				}
			}
		case reflect.Slice, reflect.Array:
			for i := range min(x.Len(), y.Len()) {
				walk(path+"[]", x.Index(i), y.Index(i))
			}
		case reflect.Map:
			for it := x.MapRange(); it.Next(); {
				if yv := y.MapIndex(it.Key()); yv.IsValid() {
					walk(path+"{}", it.Value(), yv)
				}
			}
		}
	}
	walk("", reflect.ValueOf(a), reflect.ValueOf(b))
	return out
}

// checkShared decodes b four times, shares three of the copies through one
// table as three objects of different names (the third meets every
// recurring value a second time) and updates the fourth side by side with
// the second, as its next version, and holds them to the contract: what
// they mean does not change, per-object fields stay apart, and a second
// walk changes nothing. It returns whether anything was shared.
func checkShared(t testing.TB, typ reflect.Type, b []byte) (shared bool) {
	t.Helper()
	want := decodeFresh(t, typ, b)
	tab := New(Options{})
	objs := []any{decodeFresh(t, typ, b), decodeFresh(t, typ, b), decodeFresh(t, typ, b)}
	for i, o := range objs {
		asObject(o, i, tab.Object)
	}
	like := decodeFresh(t, typ, b)
	asObject(like, 1, func(o any) { tab.ObjectLike(o, objs[1]) })
	for i, o := range append(objs, like) {
		if !equality.Semantic.DeepEqual(o, want) {
			t.Fatalf("%s: copy %d means something else after sharing:\n got %+v\nwant %+v", typ, i, o, want)
		}
	}
	for _, pair := range [][2]any{{objs[1], objs[2]}, {objs[0], objs[2]}, {objs[1], like}} {
		if paths := perObjectAliases(pair[0], pair[1]); len(paths) > 0 {
			t.Fatalf("%s: per-object fields shared between two objects: %v", typ, paths)
		}
	}
	// A second walk is stable: a shared object is left exactly as it is.
	before := objs[2].(runtime.Object).DeepCopyObject()
	tab.Object(objs[2])
	if !reflect.DeepEqual(objs[2], before) {
		t.Fatalf("%s: a second walk changed the object", typ)
	}
	return anyStringShared(reflect.ValueOf(objs[1]), reflect.ValueOf(objs[2]))
}

// asObject runs share on o named as object i (a suffix to its name, when
// it has one), then gives o its name back. The values of copies named
// alike would count as recurring in one object only, and stay unshared.
func asObject(o any, i int, share func(any)) {
	n, ok := o.(interface {
		GetName() string
		SetName(string)
	})
	if !ok {
		share(o)
		return
	}
	name := n.GetName()
	n.SetName(name + "#" + strconv.Itoa(i))
	share(o)
	n.SetName(name)
}

// anyStringShared reports whether some non-empty string of x points to the
// same bytes as the same string of y.
func anyStringShared(x, y reflect.Value) bool {
	switch x.Kind() {
	case reflect.String:
		xs, ys := x.String(), y.String()
		return len(xs) > 1 && unsafe.StringData(xs) == unsafe.StringData(ys)
	case reflect.Pointer, reflect.Interface:
		return !x.IsNil() && !y.IsNil() && anyStringShared(x.Elem(), y.Elem())
	case reflect.Struct:
		for i := range x.NumField() {
			if x.Type().Field(i).IsExported() && anyStringShared(x.Field(i), y.Field(i)) {
				return true
			}
		}
	case reflect.Slice:
		for i := range min(x.Len(), y.Len()) {
			if anyStringShared(x.Index(i), y.Index(i)) {
				return true
			}
		}
	}
	return false
}

// TestSharingKeepsEveryBuiltinTypeEqual fills objects of every built-in
// type at random and shares them: sharing on and off give semantically
// equal objects, per-object fields are never shared, and walking twice is
// stable.
func TestSharingKeepsEveryBuiltinTypeEqual(t *testing.T) {
	f := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(1), scheme.Codecs()).NilChance(0.3).NumElements(1, 2).MaxDepth(24)
	rounds := 4
	if testing.Short() {
		rounds = 2
	}
	types, sharedTypes := apiTypes(t), 0
	for _, typ := range types {
		shared := false
		for range rounds {
			src := reflect.New(typ).Interface()
			f.Fill(src)
			b, err := src.(protoMessage).Marshal()
			if err != nil {
				t.Fatalf("%s: marshal: %v", typ, err)
			}
			shared = checkShared(t, typ, b) || shared
		}
		if shared {
			sharedTypes++
		}
	}
	// Nearly every type holds a string outside the per-object fields.
	if sharedTypes < len(types)*9/10 {
		t.Fatalf("values shared in %d of %d types only", sharedTypes, len(types))
	}
}

// FuzzShare decodes any bytes the generated decoder accepts as a Pod and
// shares copies of it: the contract of checkShared holds for every input.
func FuzzShare(f *testing.F) {
	for _, p := range []*corev1.Pod{pod(1), pod(2), {}} {
		b, err := p.Marshal()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	typ := reflect.TypeFor[corev1.Pod]()
	f.Fuzz(func(t *testing.T, b []byte) {
		var p corev1.Pod
		if p.Unmarshal(b) != nil {
			return
		}
		checkShared(t, typ, b)
	})
}
