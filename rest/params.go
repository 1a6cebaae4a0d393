package rest

import (
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The query parameters of the meta/v1 option types (ListOptions,
// PatchOptions, …) are what almost every request carries. apimachinery's
// parameter codec finds them by reflection on every call, which shows in a
// controller's client CPU (BenchmarkParams compares the two); here each
// type's fields are read once into a plan, with the same rules: a field is
// named by its json tag (no tag, "-" or an inline field: skipped),
// omitempty leaves out zero values unless the field is a non-nil pointer,
// lists become repeated parameters, and nested structs are flattened.

// paramField is one field of a planned option type.
type paramField struct {
	index     int
	name      string
	omitempty bool
	ptr       bool         // *T: nil is omitted (omitempty) or ""
	kind      reflect.Kind // of T: String, Bool, Int*, Uint*, Slice (of String), Struct
	nested    *paramPlan   // kind Struct
}

type paramPlan struct{ fields []paramField }

var (
	stringerType = reflect.TypeFor[interface{ String() string }]()
	errorType    = reflect.TypeFor[error]()
)

// paramPlans are the plans of the option types sent as query parameters.
var paramPlans = sync.OnceValue(func() map[reflect.Type]*paramPlan {
	plans := map[reflect.Type]*paramPlan{}
	for _, o := range []any{
		metav1.ListOptions{}, metav1.GetOptions{}, metav1.CreateOptions{},
		metav1.UpdateOptions{}, metav1.PatchOptions{}, metav1.DeleteOptions{},
	} {
		t := reflect.TypeOf(o)
		if p, ok := planParams(t); ok {
			plans[reflect.PointerTo(t)] = p
		}
	}
	return plans
})

// planParams plans struct type t, or reports that one of its fields is of
// a kind the plan does not cover (the codec then handles the type).
func planParams(t reflect.Type) (*paramPlan, bool) {
	p := &paramPlan{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("json")
		if !ok || tag == "" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" || name == "-" {
			continue
		}
		if !f.IsExported() {
			return nil, false
		}
		pf := paramField{index: i, name: name}
		for _, o := range strings.Split(opts, ",") {
			if o == "omitempty" {
				pf.omitempty = true
			}
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			pf.ptr, ft = true, ft.Elem()
		}
		pf.kind = ft.Kind()
		if pf.kind != reflect.Struct && (ft.Implements(stringerType) || ft.Implements(errorType)) {
			// Printed by its own method, not by kind.
			return nil, false
		}
		switch pf.kind {
		case reflect.String, reflect.Bool,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		case reflect.Slice:
			if pf.ptr || ft.Elem().Kind() != reflect.String {
				return nil, false
			}
		case reflect.Struct:
			// A struct with its own query form (MarshalQueryParameter) is
			// not planned.
			if reflect.PointerTo(ft).Implements(reflect.TypeFor[interface{ MarshalQueryParameter() (string, error) }]()) {
				return nil, false
			}
			nested, ok := planParams(ft)
			if !ok {
				return nil, false
			}
			pf.nested = nested
		default:
			return nil, false
		}
		p.fields = append(p.fields, pf)
	}
	return p, true
}

// fastParams returns the query parameters of opts when its type is
// planned.
func fastParams(opts any) (url.Values, bool) {
	v := reflect.ValueOf(opts)
	p := paramPlans()[v.Type()]
	if p == nil || v.IsNil() {
		return nil, false
	}
	vals := url.Values{}
	p.encode(vals, v.Elem())
	return vals, true
}

func (p *paramPlan) encode(vals url.Values, sv reflect.Value) {
	for i := range p.fields {
		f := &p.fields[i]
		fv := sv.Field(f.index)
		omitempty := f.omitempty
		if f.ptr {
			if fv.IsNil() {
				if !omitempty && f.kind != reflect.Struct {
					vals.Add(f.name, "")
				}
				continue
			}
			fv, omitempty = fv.Elem(), false
		}
		switch f.kind {
		case reflect.Struct:
			if omitempty && fv.IsZero() {
				continue
			}
			f.nested.encode(vals, fv)
		case reflect.Slice:
			for j := range fv.Len() {
				if s := fv.Index(j).String(); s != "" || !omitempty {
					vals.Add(f.name, s)
				}
			}
		default:
			if omitempty && fv.IsZero() {
				continue
			}
			vals.Add(f.name, scalarParam(fv))
		}
	}
}

func scalarParam(v reflect.Value) string {
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	default:
		return strconv.FormatUint(v.Uint(), 10)
	}
}
