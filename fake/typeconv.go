package fake

import (
	"fmt"
	"reflect"
	"strings"

	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/kubego/kubego/scheme"
)

// typeConverter returns the schema the field manager merges res with, as
// kube-apiserver chooses it:
//
//   - a built-in kind: its model in the captured OpenAPI v3 document of
//     its group-version (list types and map keys, map and struct types,
//     from the x-kubernetes-* extensions); a kind without a captured
//     document (the alpha and beta versions Options.AllVersions adds)
//     falls back to a schema derived from the Go type's struct tags (see
//     schemaBuilder);
//   - a custom resource of a CustomResourceDefinition: its version's
//     openAPIV3Schema with ObjectMeta's model for metadata (see
//     customConverter);
//   - a resource registered without a schema (Options.Resources,
//     Register): the deduced schema kube-apiserver uses for CRDs without
//     a structural one (maps merge key by key, lists are atomic).
//
// Caller holds s.mu.
func (s *Server) typeConverter(res *resource) managedfields.TypeConverter {
	if tc, ok := s.tcs[res.gvr]; ok {
		return tc
	}
	tc := s.newTypeConverter(res)
	s.tcs[res.gvr] = tc
	return tc
}

// newTypeConverter builds the type converter typeConverter returns.
func (s *Server) newTypeConverter(res *resource) managedfields.TypeConverter {
	if !res.builtin {
		if res.schema == nil {
			return managedfields.NewDeducedTypeConverter()
		}
		if tc, err := customConverter(res); err == nil {
			return tc
		}
		// A schema that cannot be converted is not structural, and
		// kube-apiserver refuses such a definition; the fake stores it
		// and merges its objects as deduced.
		return managedfields.NewDeducedTypeConverter()
	}
	if tc, ok := builtinConverter(res.gvk); ok {
		return tc
	}
	t, ok := scheme.Default().AllKnownTypes()[res.gvk]
	if !ok {
		return managedfields.NewDeducedTypeConverter()
	}
	b := &schemaBuilder{names: map[reflect.Type]string{}}
	root := b.named(t)
	return &parsedConverter{parser: &typed.Parser{Schema: schema.Schema{Types: b.types}}, root: root}
}

// parsedConverter converts unstructured objects to typed values of one
// named type of a schema, whatever apiVersion and kind they carry.
type parsedConverter struct {
	parser *typed.Parser
	root   string
}

func (c *parsedConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, err
		}
		u = &unstructured.Unstructured{Object: m}
	}
	return c.parser.Type(c.root).FromUnstructured(u.Object, opts...)
}

func (c *parsedConverter) TypedToObject(v *typed.TypedValue) (runtime.Object, error) {
	m, ok := v.AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, fmt.Errorf("fake: typed value is not an object")
	}
	return &unstructured.Unstructured{Object: m}, nil
}

const (
	untypedAtomic  = "__untyped_atomic_"
	untypedDeduced = "__untyped_deduced_"
)

// schemaBuilder derives a structured-merge-diff schema from Go types, the
// way kube-apiserver's OpenAPI-derived schemas read: structs are maps of
// fields merged field by field; map[string]T merges key by key; a slice
// tagged patchStrategy:"merge" with a patchMergeKey is an associative list
// keyed by it, a merge-strategy slice of scalars is a set, and every other
// slice is atomic. Time, Quantity, IntOrString and the like are scalars;
// RawExtension and interface{} are deduced from content.
type schemaBuilder struct {
	names map[reflect.Type]string
	types []schema.TypeDef
}

var (
	timeType     = reflect.TypeFor[metav1.Time]()
	microType    = reflect.TypeFor[metav1.MicroTime]()
	durationType = reflect.TypeFor[metav1.Duration]()
	quantityType = reflect.TypeFor[apiresource.Quantity]()
	intstrType   = reflect.TypeFor[intstr.IntOrString]()
	rawExtType   = reflect.TypeFor[runtime.RawExtension]()
	fieldsV1Type = reflect.TypeFor[metav1.FieldsV1]()
	// atomicStructs are structs marked +structType=atomic upstream.
	atomicStructs = map[reflect.Type]bool{
		reflect.TypeFor[metav1.LabelSelector]():  true,
		reflect.TypeFor[metav1.OwnerReference](): false,
	}
)

func (b *schemaBuilder) init() {
	if len(b.types) > 0 {
		return
	}
	atomicRef := schema.TypeRef{NamedType: strPtr(untypedAtomic)}
	deducedRef := schema.TypeRef{NamedType: strPtr(untypedDeduced)}
	u := schema.Untyped
	b.types = append(b.types,
		schema.TypeDef{Name: untypedAtomic, Atom: schema.Atom{
			Scalar: &u,
			List:   &schema.List{ElementType: atomicRef, ElementRelationship: schema.Atomic},
			Map:    &schema.Map{ElementType: atomicRef, ElementRelationship: schema.Atomic},
		}},
		schema.TypeDef{Name: untypedDeduced, Atom: schema.Atom{
			Scalar: &u,
			List:   &schema.List{ElementType: atomicRef, ElementRelationship: schema.Atomic},
			Map:    &schema.Map{ElementType: deducedRef, ElementRelationship: schema.Separable},
		}},
	)
}

func strPtr(s string) *string { return &s }

// named returns the name of the type definition of struct type t, adding
// it (and what it refers to) on first use.
func (b *schemaBuilder) named(t reflect.Type) string {
	b.init()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n, ok := b.names[t]; ok {
		return n
	}
	name := t.PkgPath() + "." + t.Name()
	b.names[t] = name
	i := len(b.types)
	b.types = append(b.types, schema.TypeDef{Name: name})
	m := &schema.Map{}
	b.fields(t, m)
	if atomicStructs[t] {
		m.ElementRelationship = schema.Atomic
	}
	b.types[i].Atom = schema.Atom{Map: m}
	return name
}

func (b *schemaBuilder) fields(t reflect.Type, m *schema.Map) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && (name == "" || strings.Contains(opts, "inline")) {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				b.fields(ft, m)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		m.Fields = append(m.Fields, schema.StructField{Name: name, Type: b.ref(f.Type, f.Tag)})
	}
}

// ref returns the type reference for a field of Go type t with struct tag.
func (b *schemaBuilder) ref(t reflect.Type, tag reflect.StructTag) schema.TypeRef {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case timeType, microType, durationType, quantityType, intstrType:
		s := schema.Untyped
		if t == timeType || t == microType || t == durationType {
			s = schema.String
		}
		return schema.TypeRef{Inlined: schema.Atom{Scalar: &s}}
	case rawExtType:
		return schema.TypeRef{NamedType: strPtr(untypedDeduced)}
	case fieldsV1Type:
		return schema.TypeRef{NamedType: strPtr(untypedAtomic)}
	}
	scalar := func(s schema.Scalar) schema.TypeRef { return schema.TypeRef{Inlined: schema.Atom{Scalar: &s}} }
	switch t.Kind() {
	case reflect.String:
		return scalar(schema.String)
	case reflect.Bool:
		return scalar(schema.Boolean)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return scalar(schema.Numeric)
	case reflect.Interface:
		return schema.TypeRef{NamedType: strPtr(untypedDeduced)}
	case reflect.Struct:
		return schema.TypeRef{NamedType: strPtr(b.named(t))}
	case reflect.Map:
		return schema.TypeRef{Inlined: schema.Atom{Map: &schema.Map{ElementType: b.ref(t.Elem(), ""), ElementRelationship: schema.Separable}}}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return scalar(schema.String) // []byte is base64 text
		}
		elem := b.ref(t.Elem(), "")
		l := &schema.List{ElementType: elem, ElementRelationship: schema.Atomic}
		if strings.Contains(tag.Get("patchStrategy"), "merge") {
			et := t.Elem()
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if key := tag.Get("patchMergeKey"); key != "" && et.Kind() == reflect.Struct {
				l.ElementRelationship, l.Keys = schema.Associative, []string{key}
			} else if et.Kind() != reflect.Struct {
				l.ElementRelationship = schema.Associative // a set
			}
		}
		return schema.TypeRef{Inlined: schema.Atom{List: l}}
	}
	return schema.TypeRef{NamedType: strPtr(untypedDeduced)}
}
