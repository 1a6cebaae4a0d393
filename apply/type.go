package apply

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubego/kubego/internal/typeschema"
)

// Type is what applying and extracting objects of Go type T needs: the JSON
// shape of T and the schema that says how the server merges it (the
// list-map keys of its lists, which maps and lists are atomic). T is a
// pointer to a struct with a metav1.ObjectMeta field "metadata": a
// built-in kind (*appsv1.Deployment), whose schema is the one
// kube-apiserver publishes, or a custom resource, whose schema is derived
// from its Go type as package apischema derives its definition's, but for
// the CEL of declared rules, which is not compiled (their form is checked;
// a rule that does not compile fails the definition's build, not this
// one), so that applying links no CEL compiler.
//
// Make one Type per Go type and keep it: building it reads the schema,
// which costs far more than a Configure. A Type is immutable and safe for
// concurrent use.
type Type[T any] struct {
	elem   reflect.Type
	schema *typeschema.Schema
	fields map[reflect.Type][]field
	// unset holds, for each struct type whose placeholder is the same in
	// both runs (only lists and other fields without placeholders inside),
	// that placeholder: a pointer to one that still holds it was not set.
	unset map[reflect.Type]any
	// leaves caches isLeaf for the types reachable from T.
	leaves map[reflect.Type]bool
}

// field is one JSON property of a struct: its json name and the index
// path of the Go field (through inlined embedded structs).
type field struct {
	name  string
	index []int
}

// TypeOf returns the Type of T, or a *TypeError.
func TypeOf[T any]() (*Type[T], error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, &TypeError{Type: t, Reason: "not a pointer to a struct"}
	}
	elem := t.Elem()
	if f, ok := elem.FieldByName("ObjectMeta"); !ok || f.Type != objectMetaType || jsonName(f) != "metadata" {
		return nil, &TypeError{Type: t, Reason: "has no metav1.ObjectMeta field \"metadata\""}
	}
	// Only the structure is read: the CEL of declared rules is left to
	// the definition's build (apischema), which links the CEL compiler.
	structure := typeschema.Options{Descriptions: typeschema.NoDescriptions}
	s, err := typeschema.Type(elem, structure, nil)
	if err != nil {
		return nil, &TypeError{Type: t, Reason: "no schema", Cause: err}
	}
	if m := s.Properties["metadata"]; m == nil || len(m.Properties) == 0 {
		// A custom resource's own schema leaves metadata to the server;
		// its merge rules are ObjectMeta's.
		if s.Properties["metadata"], err = typeschema.Type(objectMetaType, structure, nil); err != nil {
			return nil, &TypeError{Type: t, Reason: "no schema for metadata", Cause: err}
		}
	}
	ty := &Type[T]{elem: elem, schema: s, fields: map[reflect.Type][]field{}, unset: map[reflect.Type]any{}, leaves: map[reflect.Type]bool{}}
	ty.index(elem)
	for t := range ty.fields {
		a, b := reflect.New(t).Elem(), reflect.New(t).Elem()
		ty.fill(a, runA, map[reflect.Type]bool{})
		ty.fill(b, runB, map[reflect.Type]bool{})
		if reflect.DeepEqual(a.Interface(), b.Interface()) {
			ty.unset[t] = a.Interface()
		}
	}
	return ty, nil
}

// index records the JSON fields of every struct reachable from t.
func (ty *Type[T]) index(t reflect.Type) {
	if _, seen := ty.leaves[t]; !seen {
		ty.leaves[t] = isLeaf(t)
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		ty.index(t.Elem())
		return
	case reflect.Struct:
	default:
		return
	}
	if _, done := ty.fields[t]; done || isLeaf(t) {
		return
	}
	var fs []field
	ty.fields[t] = nil // marks t as visited for recursive types
	collectFields(t, nil, &fs)
	ty.fields[t] = fs
	for _, f := range fs {
		ty.index(t.FieldByIndex(f.index).Type)
	}
}

func collectFields(t reflect.Type, prefix []int, out *[]field) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		idx := append(append([]int(nil), prefix...), i)
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			if f.IsExported() {
				collectFields(f.Type, idx, out)
			}
			// The fields of an unexported embedded struct cannot be set
			// by reflection: they are left out.
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		*out = append(*out, field{name: name, index: idx})
	}
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

var (
	objectMetaType  = reflect.TypeFor[metav1.ObjectMeta]()
	typeMetaType    = reflect.TypeFor[metav1.TypeMeta]()
	quantityType    = reflect.TypeFor[resource.Quantity]()
	intOrStringType = reflect.TypeFor[intstr.IntOrString]()
	metaTimeType    = reflect.TypeFor[metav1.Time]()
	microTimeType   = reflect.TypeFor[metav1.MicroTime]()
	timeType        = reflect.TypeFor[time.Time]()
	durationType    = reflect.TypeFor[metav1.Duration]()
	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
)

// isLeaf reports whether values of t are one JSON value this package does
// not look into: a type with a JSON or text form of its own (Quantity,
// IntOrString, Time, RawExtension, …).
func isLeaf(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface {
		return false
	}
	return t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) ||
		t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)
}
