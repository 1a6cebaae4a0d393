package apply

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/kubego/kubego/internal/typeschema"
)

// Configure runs set on two objects of T, each with a value at every field
// set can reach (pointers allocated, maps made, values that differ between
// the two), and returns the configuration of the fields where both results
// agree: those set set, zero values included. What set puts in place
// whole — a list, a struct or pointer literal, a new map entry — is taken
// as encoding/json with omitempty would write it: its zero scalars, nil
// pointers and empty lists and maps are not owned, except what the server
// needs even when zero: the key fields of a list-map's elements and the
// fields the schema requires.
//
// set must only write: it must not read a field before writing it, since
// the values it would read are placeholders. A value that depends on them
// is a *SetError naming its field, as is a panic in set (indexing a nil
// list, for example: lists start nil, so assign or append to them).
func (ty *Type[T]) Configure(set func(T)) (*Configuration[T], error) {
	if set == nil {
		return nil, &SetError{Reason: "nil function"}
	}
	a, err := ty.run(set, runA)
	if err != nil {
		return nil, err
	}
	b, err := ty.run(set, runB)
	if err != nil {
		return nil, err
	}
	d := differ{fields: ty.fields, unset: ty.unset, leaves: ty.leaves}
	obj, _ := d.structure(a.Elem(), b.Elem(), ty.schema, "", false, true, nil)
	if d.err != nil {
		return nil, d.err
	}
	m, _ := obj.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return &Configuration[T]{ty: ty, obj: m}, nil
}

func (ty *Type[T]) run(set func(T), run int) (v reflect.Value, err error) {
	v = reflect.New(ty.elem)
	ty.fill(v.Elem(), run, map[reflect.Type]bool{})
	defer func() {
		if r := recover(); r != nil {
			err = &SetError{Reason: fmt.Sprintf("panicked (a list starts nil: assign or append to it): %v", r)}
		}
	}()
	set(v.Interface().(T))
	return v, nil
}

// differ compares the two results of a set function. Its methods return
// the JSON value of what is owned at a path and whether anything is.
type differ struct {
	fields map[reflect.Type][]field
	unset  map[reflect.Type]any
	leaves map[reflect.Type]bool
	err    error
}

func (d *differ) isLeaf(t reflect.Type) bool {
	if l, ok := d.leaves[t]; ok {
		return l
	}
	return isLeaf(t)
}

func (d *differ) fail(path, reason string) {
	if d.err == nil {
		d.err = &SetError{Path: path, Reason: reason}
	}
}

// value compares a and b, of one type, at path. whole means the value
// was put in place whole by set (the two are deeply equal), so only its
// non-empty parts are owned; force means the value is owned even when
// empty (it is the target of a non-nil pointer, or a list-map key).
func (d *differ) value(a, b reflect.Value, s *typeschema.Schema, path string, whole, force bool) (any, bool) {
	t := a.Type()
	if d.isLeaf(t) {
		return d.leaf(a, b, path, whole, force)
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64, reflect.String:
		return d.leaf(a, b, path, whole, force)
	case reflect.Pointer:
		if a.IsNil() && b.IsNil() {
			return nil, false
		}
		if a.IsNil() || b.IsNil() {
			d.fail(path, "set to nil in one run only: the value depends on the one given")
			return nil, false
		}
		eq := whole || reflect.DeepEqual(a.Elem().Interface(), b.Elem().Interface())
		if u, ok := d.unset[t.Elem()]; ok && !whole && reflect.DeepEqual(a.Elem().Interface(), u) {
			// The placeholder is the same in both runs: still holding it
			// means set did not touch the pointer.
			return nil, false
		}
		return d.value(a.Elem(), b.Elem(), s, path, eq, eq)
	case reflect.Interface:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			d.fail(path, "the value depends on the one given")
			return nil, false
		}
		if a.IsNil() {
			return nil, false
		}
		return jsonValue(a.Interface(), path, d)
	case reflect.Struct:
		return d.structure(a, b, s, path, whole, force, nil)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return d.leaf(a, b, path, whole, force)
		}
		return d.list(a, b, s, path, whole)
	case reflect.Map:
		return d.mapping(a, b, s, path, whole)
	case reflect.Array:
		return d.leaf(a, b, path, whole, force)
	}
	return nil, false
}

// leaf compares two values of one JSON value each.
func (d *differ) leaf(a, b reflect.Value, path string, whole, force bool) (any, bool) {
	if !whole && !reflect.DeepEqual(a.Interface(), b.Interface()) {
		if fa, ok := placeholder(a.Type(), runA); ok && !reflect.DeepEqual(a.Interface(), fa) {
			d.fail(path, "the value depends on the one given (set must only write)")
		}
		return nil, false
	}
	if whole && !force && a.IsZero() {
		return nil, false
	}
	if !d.isLeaf(a.Type()) {
		switch a.Kind() {
		case reflect.Bool:
			return a.Bool(), true
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return a.Int(), true
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32:
			return int64(a.Uint()), true
		case reflect.Float32, reflect.Float64:
			return a.Float(), true
		case reflect.String:
			return a.String(), true
		}
	}
	return jsonValue(a.Interface(), path, d)
}

// placeholder is the value a field of type t holds before set runs.
func placeholder(t reflect.Type, run int) (any, bool) {
	if lv, ok := leafFill(t, run); ok {
		return lv.Interface(), true
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64, reflect.String:
		if isLeaf(t) {
			return nil, false
		}
		v := reflect.New(t).Elem()
		fillScalar(v, run)
		return v.Interface(), true
	}
	return nil, false
}

// structure compares two structs field by field. keys are the fields a
// list-map element must always name.
func (d *differ) structure(a, b reflect.Value, s *typeschema.Schema, path string, whole, force bool, keys []string) (any, bool) {
	whole = whole || reflect.DeepEqual(a.Interface(), b.Interface())
	out := map[string]any{}
	for _, f := range d.fields[a.Type()] {
		if path == "" && (f.name == "apiVersion" || f.name == "kind") && a.Type().FieldByIndex(f.index[:1]).Type == typeMetaType {
			continue // the client sets them from the resource
		}
		var fs *typeschema.Schema
		if s != nil {
			fs = s.Properties[f.name]
		}
		p := f.name
		if path != "" {
			p = path + "." + f.name
		}
		// In a value put in place whole, a zero field is still sent when
		// the server needs it: a list-map key without a default, a field
		// the schema requires.
		force := (slices.Contains(keys, f.name) && (fs == nil || fs.Default == nil)) || (whole && s != nil && slices.Contains(s.Required, f.name))
		if v, ok := d.value(a.FieldByIndex(f.index), b.FieldByIndex(f.index), fs, p, whole, force); ok {
			out[f.name] = v
		}
		if d.err != nil {
			return nil, false
		}
	}
	if len(out) == 0 && !force {
		return nil, false
	}
	return out, true
}

// list compares two lists. Lists start nil, so a list set assigned or
// appended to is equal in both runs and owned whole: its elements are
// taken as they are (with their list-map keys).
func (d *differ) list(a, b reflect.Value, s *typeschema.Schema, path string, whole bool) (any, bool) {
	if !whole && !reflect.DeepEqual(a.Interface(), b.Interface()) {
		d.fail(path, "the list depends on the one given (set must only write)")
		return nil, false
	}
	if a.IsNil() || (whole && a.Len() == 0) {
		return nil, false
	}
	var items *typeschema.Schema
	var keys []string
	if s != nil {
		items = s.Items
		if s.ListType == "map" {
			keys = s.ListMapKeys
		}
	}
	out := make([]any, 0, a.Len())
	for i := range a.Len() {
		p := fmt.Sprintf("%s[%d]", path, i)
		ea, eb := a.Index(i), b.Index(i)
		var v any
		var ok bool
		if st := indirectStruct(ea); st.IsValid() && len(keys) > 0 {
			v, ok = d.structure(st, indirectStruct(eb), items, p, true, true, keys)
		} else {
			v, ok = d.value(ea, eb, items, p, true, true)
		}
		if d.err != nil {
			return nil, false
		}
		if !ok {
			v = nil
		}
		out = append(out, v)
	}
	return out, true
}

func indirectStruct(v reflect.Value) reflect.Value {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct || isLeaf(v.Type()) {
		return reflect.Value{}
	}
	return v
}

// mapping compares two maps. A granular map is owned entry by entry: the
// entries equal in both runs (the placeholder entry differs). An atomic
// map is owned only when set assigned it whole.
func (d *differ) mapping(a, b reflect.Value, s *typeschema.Schema, path string, whole bool) (any, bool) {
	if a.IsNil() && b.IsNil() {
		return nil, false
	}
	var values *typeschema.Schema
	atomic := false
	if s != nil {
		values = s.AdditionalProperties
		atomic = s.MapType == "atomic"
	}
	equal := whole || reflect.DeepEqual(a.Interface(), b.Interface())
	if atomic && !equal {
		if a.Len() > 1 {
			d.fail(path, "an atomic map is owned whole: assign it instead of adding to it")
		}
		return nil, false
	}
	if a.IsNil() || b.IsNil() {
		d.fail(path, "set to nil in one run only: the value depends on the one given")
		return nil, false
	}
	out := map[string]any{}
	iter := a.MapRange()
	for iter.Next() {
		k := iter.Key()
		if !equal && k.String() == unsetKey {
			continue
		}
		eb := b.MapIndex(k)
		if !eb.IsValid() {
			d.fail(path+"["+k.String()+"]", "the entry depends on the map given")
			return nil, false
		}
		if !reflect.DeepEqual(iter.Value().Interface(), eb.Interface()) {
			d.fail(path+"["+k.String()+"]", "the entry depends on the map given")
			return nil, false
		}
		if v, ok := d.value(iter.Value(), eb, values, path+"["+k.String()+"]", true, true); ok {
			out[k.String()] = v
		}
		if d.err != nil {
			return nil, false
		}
	}
	if len(out) == 0 {
		return nil, false
	}
	return out, true
}

// jsonValue is v as decoding its JSON form gives it.
func jsonValue(v any, path string, d *differ) (any, bool) {
	data, err := json.Marshal(v)
	if err != nil {
		d.fail(path, "no JSON form: "+err.Error())
		return nil, false
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		d.fail(path, "no JSON form: "+err.Error())
		return nil, false
	}
	return out, out != nil
}
