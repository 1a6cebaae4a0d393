package client

import (
	"reflect"
	"strings"
)

// DeepCopy returns a deep copy of v, found by reflection. It exists so that
// a CRD Go type gets the DeepCopyObject method runtime.Object requires with
// one line and no code generator:
//
//	func (w *Widget) DeepCopyObject() runtime.Object { return client.DeepCopy(w) }
//
// It copies pointers, structs, slices, maps and interfaces recursively.
// Types from k8s.io modules (ObjectMeta, Quantity, Time …) are copied with
// their own generated DeepCopyInto. Unexported fields of other types are
// copied shallowly, and cyclic values are not supported (API objects are
// trees). It is slower than generated code; a hot path may still generate
// or hand-write DeepCopyInto.
func DeepCopy[T any](v T) T {
	src := reflect.ValueOf(&v).Elem()
	dst := reflect.New(src.Type()).Elem()
	copyValue(dst, src)
	return dst.Interface().(T)
}

func copyValue(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		n := reflect.New(src.Type().Elem())
		copyValue(n.Elem(), src.Elem())
		dst.Set(n)
	case reflect.Struct:
		t := src.Type()
		if strings.HasPrefix(t.PkgPath(), "k8s.io/") {
			if m, ok := reflect.PointerTo(t).MethodByName("DeepCopyInto"); ok && m.Type.NumIn() == 2 && m.Type.In(1) == reflect.PointerTo(t) {
				tmp := reflect.New(t)
				tmp.Elem().Set(src)
				m.Func.Call([]reflect.Value{tmp, dst.Addr()})
				return
			}
		}
		dst.Set(src)
		for i := range src.NumField() {
			if t.Field(i).IsExported() {
				copyValue(dst.Field(i), src.Field(i))
			}
		}
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		n := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := range src.Len() {
			copyValue(n.Index(i), src.Index(i))
		}
		dst.Set(n)
	case reflect.Map:
		if src.IsNil() {
			return
		}
		n := reflect.MakeMapWithSize(src.Type(), src.Len())
		it := src.MapRange()
		for it.Next() {
			val := reflect.New(src.Type().Elem()).Elem()
			copyValue(val, it.Value())
			n.SetMapIndex(it.Key(), val)
		}
		dst.Set(n)
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		val := reflect.New(src.Elem().Type()).Elem()
		copyValue(val, src.Elem())
		dst.Set(val)
	case reflect.Array:
		for i := range src.Len() {
			copyValue(dst.Index(i), src.Index(i))
		}
	default:
		dst.Set(src)
	}
}
