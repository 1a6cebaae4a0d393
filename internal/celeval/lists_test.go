package celeval

import (
	"context"
	"testing"
)

func TestSetAndMapListsCompareAndConcatenateAsKubeAPIServer(t *testing.T) {
	item := func(name string, w int64) map[string]any { return map[string]any{"name": name, "weight": w} }
	schema := func(rule string) map[string]any {
		return map[string]any{
			"type": "object",
			"properties": map[string]any{
				"set":    map[string]any{"type": "array", "x-kubernetes-list-type": "set", "items": map[string]any{"type": "string"}},
				"other":  map[string]any{"type": "array", "x-kubernetes-list-type": "set", "items": map[string]any{"type": "string"}},
				"atomic": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
				"items": map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"}, "items": map[string]any{
					"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}, "weight": map[string]any{"type": "integer"}},
				}},
			},
			"x-kubernetes-validations": []any{map[string]any{"rule": rule}},
		}
	}
	obj := map[string]any{
		"set":    []any{"a", "b", "c"},
		"other":  []any{"c", "a", "b"},
		"atomic": []any{"c", "a", "b"},
		"items":  []any{item("x", 1), item("y", 2)},
	}
	tests := []struct {
		name, rule string
		old        map[string]any
		holds      bool
	}{
		{"sets in another order are equal", "self.set == self.other", nil, true},
		{"a set equals a list literal in another order", "self.set == ['c', 'b', 'a']", nil, true},
		{"a set differs from one with another item", "self.set == ['a', 'b', 'd']", nil, false},
		{"an atomic list compares in order", "self.atomic == ['a', 'b', 'c']", nil, false},
		{"a set plus a set adds only the items it lacks", "self.set + ['d', 'a'] == ['a', 'b', 'c', 'd']", nil, true},
		{"map lists pair items by key", "self.items == oldSelf.items", map[string]any{"items": []any{item("y", 2), item("x", 1)}}, true},
		{"map lists differ in a value", "self.items == oldSelf.items", map[string]any{"items": []any{item("y", 3), item("x", 1)}}, false},
		{"a map list plus another replaces the items of equal keys", "(self.items + oldSelf.items).map(i, i.weight) == [5, 2, 3]", map[string]any{"items": []any{item("x", 5), item("z", 3)}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := New(schema(tt.rule), Options{})
			if err != nil {
				t.Fatal(err)
			}
			old := tt.old
			if old != nil {
				for k, val := range obj {
					if _, ok := old[k]; !ok {
						old[k] = val
					}
				}
			}
			errs := v.Validate(context.Background(), obj, old)
			if got := len(errs) == 0; got != tt.holds {
				t.Errorf("rule held %v, want %v (%v)", got, tt.holds, errs)
			}
		})
	}
}
