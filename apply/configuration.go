package apply

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/kubego/kubego/internal/typeschema"
)

// Configuration is the part of an object of type T that one field manager
// owns: the fields it sets, by Type.Configure, or owns on a live object,
// by Type.Extract. Its Object is the body of a server-side apply (without
// apiVersion and kind, which the client fills in from the resource). A
// Configuration is immutable and safe for concurrent use.
type Configuration[T any] struct {
	ty  *Type[T]
	obj map[string]any
}

// Object returns a copy of the configuration as a JSON object.
func (c *Configuration[T]) Object() map[string]any {
	return copyValue(c.obj).(map[string]any)
}

// ApplyObject returns the JSON object a server-side apply sends: Object.
// It is the method package client looks for in an apply configuration.
func (c *Configuration[T]) ApplyObject() map[string]any { return c.Object() }

// MarshalJSON encodes Object.
func (c *Configuration[T]) MarshalJSON() ([]byte, error) { return json.Marshal(c.obj) }

// Name returns metadata.name ("" when not set).
func (c *Configuration[T]) Name() string { return c.meta("name") }

// Namespace returns metadata.namespace ("" when not set).
func (c *Configuration[T]) Namespace() string { return c.meta("namespace") }

func (c *Configuration[T]) meta(key string) string {
	m, _ := c.obj["metadata"].(map[string]any)
	s, _ := m[key].(string)
	return s
}

// Value returns the configuration as a T: the owned fields hold their
// values, every other field is zero. It fails only when the configuration
// does not decode as a T (a *TypeError).
func (c *Configuration[T]) Value() (T, error) {
	v := reflect.New(c.ty.elem)
	data, err := json.Marshal(c.obj)
	if err == nil {
		err = json.Unmarshal(data, v.Interface())
	}
	if err != nil {
		var zero T
		return zero, &TypeError{Type: v.Type(), Reason: "configuration does not decode", Cause: err}
	}
	return v.Interface().(T), nil
}

// Equal reports whether c and o hold the same fields with the same
// values, as the server merges them: list-map elements and set elements in
// any order, numbers by value; apiVersion, kind and metadata.namespace
// are not compared (the resource and the client give them).
func (c *Configuration[T]) Equal(o *Configuration[T]) bool {
	if c == nil || o == nil {
		return c == o
	}
	return reflect.DeepEqual(normalize(c.obj, c.ty.schema, true), normalize(o.obj, c.ty.schema, true))
}

// normalize returns v through its JSON form (so numbers are float64) with
// the elements of map and set lists sorted by their JSON form.
func normalize(v any, s *typeschema.Schema, root bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if root && (k == "apiVersion" || k == "kind") {
				continue
			}
			var sub *typeschema.Schema
			if s != nil {
				if sub = s.Properties[k]; sub == nil {
					sub = s.AdditionalProperties
				}
			}
			n := normalize(e, sub, false)
			if root && k == "metadata" {
				if m, ok := n.(map[string]any); ok {
					delete(m, "namespace")
				}
			}
			out[k] = n
		}
		return out
	case []any:
		var items *typeschema.Schema
		if s != nil {
			items = s.Items
		}
		out := make([]any, len(x))
		keys := make([]string, len(x))
		for i, e := range x {
			out[i] = normalize(e, items, false)
			data, _ := json.Marshal(out[i])
			keys[i] = string(data)
		}
		if s != nil && (s.ListType == "map" || s.ListType == "set") {
			if s.ListType == "map" {
				for i, e := range out {
					keys[i] = listKey(e, s.ListMapKeys)
				}
			}
			idx := make([]int, len(out))
			for i := range idx {
				idx[i] = i
			}
			slices.SortStableFunc(idx, func(i, j int) int { return strings.Compare(keys[i], keys[j]) })
			sorted := make([]any, len(out))
			for i, k := range idx {
				sorted[i] = out[k]
			}
			out = sorted
		}
		return out
	}
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}

// listKey is the JSON form of the key fields of a list-map element.
func listKey(e any, keys []string) string {
	m, _ := e.(map[string]any)
	k := make(map[string]any, len(keys))
	for _, name := range keys {
		k[name] = m[name]
	}
	data, _ := json.Marshal(k)
	return string(data)
}

func copyValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = copyValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyValue(e)
		}
		return out
	}
	return v
}
