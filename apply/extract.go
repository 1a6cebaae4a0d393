package apply

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
		obj, err := ty.full(v.Elem())
		if err != nil {
			return nil, &ExtractError{Manager: manager, Reason: "encoding the object: " + err.Error()}
		}
		p, err := project(obj, set)
		if err != nil {
			return nil, &ExtractError{Manager: manager, Reason: err.Error()}
		}
		out, _ = p.(map[string]any)
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

// project returns the part of the JSON value v that the field set set
// names (the fieldsV1 form: "f:<name>" for a field, "k:<keys>" for a
// list-map element, "v:<value>" for a set element, "i:<index>" for a list
// element by position, "." for the element itself).
func project(v any, set map[string]any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, sub := range set {
			name, ok := strings.CutPrefix(k, "f:")
			if !ok {
				if k == "." {
					continue
				}
				return nil, errorf("unexpected %q in the fields of an object", k)
			}
			child, present := x[name]
			if !present {
				continue
			}
			p, err := projectChild(child, sub)
			if err != nil {
				return nil, err
			}
			out[name] = p
		}
		return out, nil
	case []any:
		type entry struct {
			key   map[string]any // k:
			value any            // v:
			isVal bool
			index int // i:, or -1
			sub   any
		}
		var entries []entry
		for k, sub := range set {
			e := entry{index: -1, sub: sub}
			switch {
			case k == ".":
				continue
			case strings.HasPrefix(k, "k:"):
				if err := json.Unmarshal([]byte(k[2:]), &e.key); err != nil || e.key == nil {
					return nil, errorf("list-map key %q: not a JSON object", k)
				}
			case strings.HasPrefix(k, "v:"):
				if err := json.Unmarshal([]byte(k[2:]), &e.value); err != nil {
					return nil, errorf("set value %q: %v", k, err)
				}
				e.isVal = true
			case strings.HasPrefix(k, "i:"):
				i, err := strconv.Atoi(k[2:])
				if err != nil || i < 0 {
					return nil, errorf("list index %q", k)
				}
				e.index = i
			default:
				return nil, errorf("unexpected %q in the fields of a list", k)
			}
			entries = append(entries, e)
		}
		out := []any{}
		for i, el := range x {
			for _, e := range entries {
				m, isMap := el.(map[string]any)
				switch {
				case e.key != nil && isMap && matches(m, e.key):
					p, err := projectChild(m, e.sub)
					if err != nil {
						return nil, err
					}
					pm, _ := p.(map[string]any)
					if pm == nil {
						pm = map[string]any{}
					}
					for kn := range e.key {
						pm[kn] = m[kn]
					}
					out = append(out, pm)
				case e.isVal && jsonEqual(el, e.value):
					out = append(out, el)
				case e.index == i:
					p, err := projectChild(el, e.sub)
					if err != nil {
						return nil, err
					}
					out = append(out, p)
				default:
					continue
				}
				break
			}
		}
		return out, nil
	}
	return v, nil
}

// projectChild projects a field's value by its set: an empty set owns the
// value whole.
func projectChild(child any, sub any) (any, error) {
	s, _ := sub.(map[string]any)
	if len(s) == 0 {
		return child, nil
	}
	return project(child, s)
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

// full returns the JSON value of v with every field present, zero or not:
// encoding/json would leave out the zero fields tagged omitempty, which a
// manager may own (a "paused": false it applied).
func (ty *Type[T]) full(v reflect.Value) (any, error) {
	t := v.Type()
	if isLeaf(t) || t.Kind() == reflect.Interface || t.Kind() == reflect.Array || (t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8) {
		return encode(v.Interface())
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil, nil
		}
		return ty.full(v.Elem())
	case reflect.Struct:
		out := map[string]any{}
		for _, f := range ty.fields[t] {
			e, err := ty.full(v.FieldByIndex(f.index))
			if err != nil {
				return nil, err
			}
			if e != nil {
				out[f.name] = e
			}
		}
		return out, nil
	case reflect.Slice:
		if v.IsNil() {
			return nil, nil
		}
		out := make([]any, v.Len())
		for i := range v.Len() {
			e, err := ty.full(v.Index(i))
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	case reflect.Map:
		if v.IsNil() {
			return nil, nil
		}
		out := make(map[string]any, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			e, err := ty.full(iter.Value())
			if err != nil {
				return nil, err
			}
			out[iter.Key().String()] = e
		}
		return out, nil
	}
	return encode(v.Interface())
}

func encode(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(data, &out)
	return out, err
}
