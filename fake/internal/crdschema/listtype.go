package crdschema

import (
	"encoding/json"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// listTypeErrors checks the arrays of v that the schema marks
// x-kubernetes-list-type set (no two equal items) or map (items are
// objects, no two with the same values of x-kubernetes-list-map-keys), as
// kube-apiserver does after the schema validation: each value repeated is
// reported once, at its second occurrence, as a Duplicate.
func (s Schema) listTypeErrors(v any, path *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	switch t := v.(type) {
	case map[string]any:
		props := s.props()
		add := s.sub(s["additionalProperties"])
		for _, k := range slices.Sorted(maps.Keys(t)) {
			c := t[k]
			if ps, ok := props[k]; ok {
				errs = append(errs, s.sub(ps).listTypeErrors(c, path.Child(k))...)
			} else if add != nil {
				errs = append(errs, add.listTypeErrors(c, path.Child(k))...)
			}
		}
	case []any:
		switch lt, _ := s["x-kubernetes-list-type"].(string); lt {
		case "set":
			for _, i := range repeated(t) {
				errs = append(errs, field.Duplicate(path.Index(i), t[i]))
			}
		case "map":
			errs = append(errs, s.mapListErrors(t, path)...)
		}
		items := s.sub(s["items"])
		for i, e := range t {
			errs = append(errs, items.listTypeErrors(e, path.Index(i))...)
		}
	}
	return errs
}

// mapListErrors checks a list of type map.
func (s Schema) mapListErrors(t []any, path *field.Path) field.ErrorList {
	for i, x := range t {
		if _, ok := x.(map[string]any); x != nil && !ok {
			return field.ErrorList{field.Invalid(path.Index(i), x, "must be an object for an array of list-type map")}
		}
	}
	rawKeys, _ := s["x-kubernetes-list-map-keys"].([]any)
	var names []string
	for _, k := range rawKeys {
		if n, ok := k.(string); ok {
			names = append(names, n)
		}
	}
	keys := make([]any, len(t))
	for i, x := range t {
		m, _ := x.(map[string]any)
		key := map[string]any{}
		for _, n := range names {
			if kv, ok := m[n]; ok {
				key[n] = kv
			}
		}
		keys[i] = key
	}
	var errs field.ErrorList
	for _, i := range repeated(keys) {
		errs = append(errs, field.Duplicate(path.Index(i), keys[i]))
	}
	return errs
}

// repeated returns the indexes where a value of t occurs for the second
// time, compared as JSON.
func repeated(t []any) []int {
	if len(t) < 2 {
		return nil
	}
	seen := make(map[string]int, len(t))
	var out []int
	for i, x := range t {
		b, err := json.Marshal(x)
		if err != nil {
			continue
		}
		seen[string(b)]++
		if seen[string(b)] == 2 {
			out = append(out, i)
		}
	}
	return out
}
