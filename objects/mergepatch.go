package objects

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// MergePatch returns the JSON merge patch (RFC 7386) that turns old into
// new: the fields of new that differ from old, null for the fields new
// no longer has, and objects compared field by field; arrays that differ
// are sent whole. old and new are encoded with encoding/json (a typed
// object, an *unstructured.Unstructured's Object, a map). An empty patch
// is "{}".
func MergePatch(old, new any) ([]byte, error) {
	o, err := toMap(old)
	if err != nil {
		return nil, err
	}
	n, err := toMap(new)
	if err != nil {
		return nil, err
	}
	return json.Marshal(diff(o, n))
}

// toMap encodes v as a JSON object and decodes it into a map.
func toMap(v any) (map[string]any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("objects: encoding %T: %w", v, err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("objects: %T is not a JSON object: %w", v, err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// diff returns the merge patch from old to new. It never returns nil.
func diff(old, new map[string]any) map[string]any {
	out := map[string]any{}
	for k, ov := range old {
		nv, ok := new[k]
		if !ok {
			out[k] = nil
			continue
		}
		om, oMap := ov.(map[string]any)
		nm, nMap := nv.(map[string]any)
		if oMap && nMap {
			if d := diff(om, nm); len(d) > 0 {
				out[k] = d
			}
			continue
		}
		if !reflect.DeepEqual(ov, nv) {
			out[k] = nv
		}
	}
	for k, nv := range new {
		if _, ok := old[k]; !ok {
			out[k] = nv
		}
	}
	return out
}
