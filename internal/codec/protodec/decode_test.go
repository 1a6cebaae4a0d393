package protodec

import (
	"bytes"
	"math/rand"
	"reflect"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/scheme"
)

// exporter lets cmp look into unexported fields (Quantity, Time).
var exporter = cmp.Exporter(func(reflect.Type) bool { return true })

type marshaler interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// apiTypes returns one zero value of every registered built-in type that
// has protobuf methods, sorted by name.
func apiTypes(t testing.TB) []reflect.Type {
	seen := map[reflect.Type]bool{}
	var out []reflect.Type
	all := []reflect.Type{reflect.TypeFor[metav1.PartialObjectMetadata](), reflect.TypeFor[metav1.PartialObjectMetadataList]()}
	for _, typ := range scheme.Default().AllKnownTypes() {
		all = append(all, typ)
	}
	for _, typ := range all {
		if seen[typ] || !reflect.PointerTo(typ).Implements(reflect.TypeFor[marshaler]()) {
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

// mapSharer is a Sharer for tests: it shares every string and map.
type mapSharer struct {
	strs map[string]string
	maps map[string]reflect.Value
	kept int
	hits int
}

func newMapSharer() *mapSharer {
	return &mapSharer{strs: map[string]string{}, maps: map[string]reflect.Value{}}
}

func (s *mapSharer) ShareBytes(_ uint32, b []byte) string {
	if v, ok := s.strs[string(b)]; ok {
		return v
	}
	v := string(b)
	s.strs[v] = v
	return v
}

func (s *mapSharer) SharedMap(_ uint32, t reflect.Type, raw []byte) (reflect.Value, bool) {
	v, ok := s.maps[t.String()+"\x00"+string(raw)]
	if ok {
		s.hits++
	}
	return v, ok
}

func (s *mapSharer) KeepMap(_ uint32, t reflect.Type, raw []byte, m reflect.Value) {
	s.maps[t.String()+"\x00"+string(raw)] = m
	s.kept++
}

// TestUnmarshalMatchesGenerated decodes randomly filled objects of every
// built-in type both ways and requires the same result.
func TestUnmarshalMatchesGenerated(t *testing.T) {
	var d Decoder
	f := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(1), scheme.Codecs()).NilChance(0.3).NumElements(0, 2).MaxDepth(24)
	planned, kept, hits := 0, 0, 0
	for _, typ := range apiTypes(t) {
		sh := newMapSharer()
		if !d.Plannable(typ) {
			_, err := d.planner.plan(typ)
			t.Logf("not plannable: %v", err)
			continue
		}
		planned++
		for round := range 4 {
			src := reflect.New(typ).Interface()
			f.Fill(src)
			b, err := src.(marshaler).Marshal()
			if err != nil {
				t.Fatalf("%s: marshal: %v", typ, err)
			}
			want := reflect.New(typ).Interface()
			if err := want.(marshaler).Unmarshal(b); err != nil {
				t.Fatalf("%s: generated unmarshal: %v", typ, err)
			}
			got := reflect.New(typ).Interface()
			if ok, err := d.Unmarshal(b, got, nil); !ok || err != nil {
				t.Fatalf("%s round %d: Unmarshal = %v, %v", typ, round, ok, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s round %d: differs from the generated decoder (-generated +ours):\n%s", typ, round, cmp.Diff(want, got, cmpopts.EquateComparable(resource.Quantity{}), exporter))
			}
			// Twice with sharing: the second decode meets every value again.
			for range 2 {
				shared := reflect.New(typ).Interface()
				if ok, err := d.Unmarshal(b, shared, sh); !ok || err != nil {
					t.Fatalf("%s round %d: shared Unmarshal = %v, %v", typ, round, ok, err)
				}
				if !equality.Semantic.DeepEqual(shared, want) {
					t.Fatalf("%s round %d: shared decode differs:\n got %+v\nwant %+v", typ, round, shared, want)
				}
			}
		}
		kept, hits = kept+sh.kept, hits+sh.hits
	}
	if planned < 100 {
		t.Fatalf("only %d types plannable", planned)
	}
	if hits == 0 || kept == 0 {
		t.Fatalf("no map was shared (kept %d, hits %d)", kept, hits)
	}
}

func TestUnmarshalSharesValues(t *testing.T) {
	var d Decoder
	b := mustMarshal(t, testPod("web-5d4f8b7c9d-x7k2p"))
	sh := newMapSharer()
	var p1, p2 corev1.Pod
	for _, p := range []*corev1.Pod{&p1, &p2} {
		if ok, err := d.Unmarshal(b, p, sh); !ok || err != nil {
			t.Fatalf("Unmarshal = %v, %v", ok, err)
		}
	}
	tests := []struct {
		name     string
		same     bool
		got, old any
	}{
		{"labels map is shared", true, p1.Labels, p2.Labels},
		{"resource list is shared", true, p1.Spec.Containers[0].Resources.Limits, p2.Spec.Containers[0].Resources.Limits},
		{"image string is shared", true, unsafeStringData(p1.Spec.Containers[0].Image), unsafeStringData(p2.Spec.Containers[0].Image)},
		{"name is never shared", false, unsafeStringData(p1.Name), unsafeStringData(p2.Name)},
		{"uid is never shared", false, unsafeStringData(string(p1.UID)), unsafeStringData(string(p2.UID))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			same := reflect.ValueOf(tt.got).UnsafePointer() == reflect.ValueOf(tt.old).UnsafePointer()
			if same != tt.same {
				t.Fatalf("shared = %v, want %v", same, tt.same)
			}
		})
	}
	q := p1.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU]
	if !quantityStringCached(&q) {
		t.Fatal("a shared quantity's canonical string is not filled in")
	}
}

func TestUnmarshalSplitMapIsCopiedBeforeMerging(t *testing.T) {
	// Entries of one map field split by another field: the second part must
	// not be added to a map shared with another object.
	var d Decoder
	whole := mustMarshal(t, &metav1.ObjectMeta{Labels: map[string]string{"a": "1"}})
	extra := mustMarshal(t, &metav1.ObjectMeta{Namespace: "ns"})
	more := mustMarshal(t, &metav1.ObjectMeta{Labels: map[string]string{"b": "2"}})
	split := append(append(append([]byte{}, whole...), extra...), more...)
	sh := newMapSharer()
	var first, second metav1.ObjectMeta
	for _, c := range []struct {
		b []byte
		m *metav1.ObjectMeta
	}{{whole, &first}, {split, &second}} {
		if ok, err := d.Unmarshal(c.b, c.m, sh); !ok || err != nil {
			t.Fatalf("Unmarshal = %v, %v", ok, err)
		}
	}
	if len(first.Labels) != 1 || len(second.Labels) != 2 {
		t.Fatalf("labels %v and %v, want 1 and 2 entries", first.Labels, second.Labels)
	}
}

func TestUnmarshalNotHandled(t *testing.T) {
	var d Decoder
	tests := []struct {
		name string
		obj  any
	}{
		{"nil pointer", (*corev1.Pod)(nil)},
		{"not a pointer", corev1.Pod{}},
		{"pointer to a non-struct", new(string)},
		{"a type that decodes itself", new(resource.Quantity)},
		{"a struct without protobuf tags", new(struct{ A int })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ok, err := d.Unmarshal([]byte{}, tt.obj, nil); ok || err != nil {
				t.Fatalf("Unmarshal = %v, %v; want false, nil", ok, err)
			}
		})
	}
}

func TestUnmarshalRejectsWhatGeneratedRejects(t *testing.T) {
	var d Decoder
	good := mustMarshal(t, testPod("a"))
	tests := []struct {
		name string
		b    []byte
	}{
		{"truncated", good[:len(good)/2]},
		{"length past the end", []byte{0x0a, 0x7f}},
		{"field number zero", []byte{0x00, 0x01}},
		{"end group without start", []byte{0x0c}},
		{"wrong wire type for a known field", []byte{0x08, 0x01}},
		{"overlong varint", bytes.Repeat([]byte{0xff}, 11)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want corev1.Pod
			wantErr := want.Unmarshal(tt.b)
			var got corev1.Pod
			ok, err := d.Unmarshal(tt.b, &got, nil)
			if !ok || (err == nil) != (wantErr == nil) {
				t.Fatalf("Unmarshal = %v, %v; generated: %v", ok, err, wantErr)
			}
		})
	}
}

func mustMarshal(t testing.TB, m interface{ Marshal() ([]byte, error) }) []byte {
	t.Helper()
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// keptSharer records what KeepMap is given.
type keptSharer struct {
	*mapSharer
	kept []reflect.Value
}

func (k *keptSharer) KeepMap(site uint32, t reflect.Type, raw []byte, m reflect.Value) {
	k.kept = append(k.kept, m)
	k.mapSharer.KeepMap(site, t, raw, m)
}

func TestKeepMapGetsTheMapNotTheField(t *testing.T) {
	// A kept value that pointed at the decoded object's field would keep
	// the whole object alive in the table.
	var d Decoder
	k := &keptSharer{mapSharer: newMapSharer()}
	var p corev1.Pod
	if ok, err := d.Unmarshal(mustMarshal(t, testPod("web-1")), &p, k); !ok || err != nil {
		t.Fatalf("Unmarshal = %v, %v", ok, err)
	}
	if len(k.kept) == 0 {
		t.Fatal("no map kept")
	}
	for _, v := range k.kept {
		if v.CanAddr() {
			t.Fatalf("kept an addressable %s", v.Type())
		}
	}
}
