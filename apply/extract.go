package apply

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/internal/typeschema"
)

// Extract returns the part of live that manager owns through server-side
// apply of the object itself (its managedFields entry of operation Apply
// and no subresource), with metadata.name and metadata.namespace always
// set, as client-go's generated Extract functions do. A manager with no
// such entry gives a configuration of only those. Applying the result as
// that manager changes nothing; Configuration.Equal tells whether a
// desired configuration differs from it.
//
// The result holds live's values: fields the server normalises (a
// Quantity's form) or defaults inside owned fields (a list-map key such as
// a port's protocol) read back as the server has them. A managedFields
// entry that cannot be read is an *ExtractError.
func (ty *Type[T]) Extract(live T, manager string) (*Configuration[T], error) {
	return ty.ExtractSubresource(live, manager, "")
}

// ExtractSubresource is Extract for the fields manager owns by applying
// the subresource ("status").
func (ty *Type[T]) ExtractSubresource(live T, manager, subresource string) (*Configuration[T], error) {
	v := reflect.ValueOf(live)
	if !v.IsValid() || v.IsNil() {
		return nil, &ExtractError{Manager: manager, Reason: "nil object"}
	}
	meta := v.Elem().FieldByName("ObjectMeta").Interface().(metav1.ObjectMeta)
	out := map[string]any{}
	for _, e := range meta.ManagedFields {
		if e.Manager != manager || e.Operation != metav1.ManagedFieldsOperationApply || e.Subresource != subresource || e.FieldsV1 == nil {
			continue
		}
		if e.FieldsType != "" && e.FieldsType != "FieldsV1" {
			return nil, &ExtractError{Manager: manager, Reason: "fields of type " + e.FieldsType}
		}
		var set map[string]any
		if err := json.Unmarshal(e.FieldsV1.Raw, &set); err != nil {
			return nil, &ExtractError{Manager: manager, Reason: "fieldsV1: " + err.Error()}
		}
		p := projector{d: differ{fields: ty.fields, unset: ty.unset, leaves: ty.leaves}}
		pv, _, err := p.value(v.Elem(), ty.schema, set, "")
		if err != nil {
			return nil, &ExtractError{Manager: manager, Reason: err.Error()}
		}
		out, _ = pv.(map[string]any)
		break
	}
	md, _ := out["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		out["metadata"] = md
	}
	md["name"] = meta.Name
	if meta.Namespace != "" {
		md["namespace"] = meta.Namespace
	}
	return &Configuration[T]{ty: ty, obj: out}, nil
}

// projector reads the part of a Go value that a field set (the fieldsV1
// form) names: "f:<name>" for a field or map entry, "k:<keys>" for a
// list-map element, "v:<value>" for a set element, "i:<index>" for a list
// element by position, "." for the element itself. A value owned whole is
// read as Configure reads a value put in place whole, so that the two
// compare equal.
type projector struct {
	d differ
}

func (p *projector) value(v reflect.Value, s *typeschema.Schema, set map[string]any, path string) (any, bool, error) {
	if len(set) == 0 {
		out, ok := p.d.value(v, v, s, path, true, true)
		return out, ok, p.d.err
	}
	t := v.Type()
	if p.d.isLeaf(t) {
		out, ok := p.d.value(v, v, s, path, true, true)
		return out, ok, p.d.err
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil, false, nil
		}
		return p.value(v.Elem(), s, set, path)
	case reflect.Struct:
		return p.structure(v, s, set, path, nil)
	case reflect.Map:
		if v.IsNil() {
			return nil, false, nil
		}
		var values *typeschema.Schema
		if s != nil {
			values = s.AdditionalProperties
		}
		out := map[string]any{}
		for k, sub := range set {
			name, ok := strings.CutPrefix(k, "f:")
			if !ok {
				if k == "." {
					continue
				}
				return nil, false, errorf("%s: unexpected %q in the fields of a map", path, k)
			}
			e := v.MapIndex(reflect.ValueOf(name).Convert(t.Key()))
			if !e.IsValid() {
				continue
			}
			sm, _ := sub.(map[string]any)
			ev, ok, err := p.value(e, values, sm, path+"["+name+"]")
			if err != nil {
				return nil, false, err
			}
			if ok {
				out[name] = ev
			}
		}
		return out, true, nil
	case reflect.Slice:
		return p.list(v, s, set, path)
	}
	return nil, false, errorf("%s: fields inside a %s", path, t.Kind())
}

func (p *projector) structure(v reflect.Value, s *typeschema.Schema, set map[string]any, path string, keys []string) (any, bool, error) {
	byName := map[string]field{}
	for _, f := range p.d.fields[v.Type()] {
		byName[f.name] = f
	}
	out := map[string]any{}
	for k, sub := range set {
		name, ok := strings.CutPrefix(k, "f:")
		if !ok {
			if k == "." {
				continue
			}
			return nil, false, errorf("%s: unexpected %q in the fields of an object", path, k)
		}
		f, ok := byName[name]
		if !ok {
			continue // a field the Go type does not hold
		}
		var fs *typeschema.Schema
		if s != nil {
			fs = s.Properties[name]
		}
		sm, _ := sub.(map[string]any)
		fv, ok, err := p.value(v.FieldByIndex(f.index), fs, sm, join(path, name))
		if err != nil {
			return nil, false, err
		}
		if ok {
			out[name] = fv
		}
	}
	for _, name := range keys {
		if f, ok := byName[name]; ok {
			if _, done := out[name]; !done {
				var fs *typeschema.Schema
				if s != nil {
					fs = s.Properties[name]
				}
				if kv, ok := p.d.value(v.FieldByIndex(f.index), v.FieldByIndex(f.index), fs, join(path, name), true, true); ok {
					out[name] = kv
				}
			}
		}
	}
	return out, true, p.d.err
}

func (p *projector) list(v reflect.Value, s *typeschema.Schema, set map[string]any, path string) (any, bool, error) {
	type entry struct {
		key   map[string]any // k:
		value any            // v:
		isVal bool
		index int // i:, or -1
		sub   map[string]any
	}
	var entries []entry
	for k, sub := range set {
		e := entry{index: -1}
		e.sub, _ = sub.(map[string]any)
		switch {
		case k == ".":
			continue
		case strings.HasPrefix(k, "k:"):
			if err := json.Unmarshal([]byte(k[2:]), &e.key); err != nil || e.key == nil {
				return nil, false, errorf("%s: list-map key %q is not a JSON object", path, k)
			}
		case strings.HasPrefix(k, "v:"):
			if err := json.Unmarshal([]byte(k[2:]), &e.value); err != nil {
				return nil, false, errorf("%s: set value %q: %v", path, k, err)
			}
			e.isVal = true
		case strings.HasPrefix(k, "i:"):
			i, err := strconv.Atoi(k[2:])
			if err != nil || i < 0 {
				return nil, false, errorf("%s: list index %q", path, k)
			}
			e.index = i
		default:
			return nil, false, errorf("%s: unexpected %q in the fields of a list", path, k)
		}
		entries = append(entries, e)
	}
	var items *typeschema.Schema
	var keys []string
	if s != nil {
		items = s.Items
		keys = s.ListMapKeys
	}
	out := []any{}
	for i := range v.Len() {
		el := v.Index(i)
		ep := fmt.Sprintf("%s[%d]", path, i)
		var whole any // el as a whole value, computed once when needed
		wholeOf := func() any {
			if whole == nil {
				whole, _ = p.d.value(el, el, items, ep, true, true)
			}
			return whole
		}
		for _, e := range entries {
			switch {
			case e.key != nil:
				m, _ := wholeOf().(map[string]any)
				if m == nil || !matches(m, e.key) {
					continue
				}
				k := keys
				if len(k) == 0 {
					for name := range e.key {
						k = append(k, name)
					}
				}
				st := indirectStruct(el)
				if !st.IsValid() {
					return nil, false, errorf("%s: a keyed element that is not an object", ep)
				}
				pv, _, err := p.structure(st, items, e.sub, ep, k)
				if err != nil {
					return nil, false, err
				}
				out = append(out, pv)
			case e.isVal:
				if !jsonEqual(wholeOf(), e.value) {
					continue
				}
				out = append(out, wholeOf())
			case e.index == i:
				pv, ok, err := p.value(el, items, e.sub, ep)
				if err != nil {
					return nil, false, err
				}
				if !ok {
					pv = nil
				}
				out = append(out, pv)
			default:
				continue
			}
			break
		}
		if p.d.err != nil {
			return nil, false, p.d.err
		}
	}
	return out, true, nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func matches(m, key map[string]any) bool {
	for k, v := range key {
		if !jsonEqual(m[k], v) {
			return false
		}
	}
	return true
}

func jsonEqual(a, b any) bool {
	return reflect.DeepEqual(normalize(a, nil, false), normalize(b, nil, false))
}
