package rest

import "reflect"

// newOf returns a new *T for the struct type t.
func newOf(t reflect.Type) any { return reflect.New(t).Interface() }

// isNil reports whether v is nil or a nil pointer, map, slice or func
// wrapped in an interface.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Interface, reflect.Chan:
		return rv.IsNil()
	}
	return false
}
