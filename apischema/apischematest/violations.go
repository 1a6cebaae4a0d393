package apischematest

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Valid returns a Sample named name that the server accepts, with every
// declared field set.
func Valid(name string) *Sample {
	replicas, note, must := int32(3), "n", "yes"
	return &Sample{
		TypeMeta:   metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: "Sample"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: SampleSpec{
			String: "s", Array: [2]int32{1, 2}, Nested: Nested{A: "a"},
			Color: "red", Replicas: &replicas, Ratio: 0.5, Step: 10, Name: "abc", Email: "a@example.com",
			Tags: []string{"a", "b"}, Labels: map[string]string{"a": "1"}, Note: &note,
			Items: []Item{{Name: "x"}, {Name: "y"}}, Window: &Window{Start: 1, End: 2}, MustHave: &must,
		},
	}
}

// Violation is a change to a valid Sample's spec (as JSON) that breaks one
// declaration, and the cause the server answers: the field's path and a
// part of its message.
type Violation struct {
	Name    string
	Change  func(spec map[string]any)
	Field   string
	Message string
	// CEL marks a violation of a CEL rule (x-kubernetes-validations).
	CEL bool
}

// Violations returns one Violation per declaration kind of Sample.
func Violations() []Violation {
	set := func(k string, v any) func(map[string]any) { return func(s map[string]any) { s[k] = v } }
	del := func(k string) func(map[string]any) { return func(s map[string]any) { delete(s, k) } }
	return []Violation{
		{Name: "enum", Change: set("color", "purple"), Field: "spec.color", Message: `Unsupported value: "purple"`},
		{Name: "minimum", Change: set("replicas", int64(-1)), Field: "spec.replicas", Message: "should be greater than or equal to 0"},
		{Name: "maximum", Change: set("replicas", int64(11)), Field: "spec.replicas", Message: "should be less than or equal to 10"},
		{Name: "exclusiveMaximum", Change: set("ratio", int64(1)), Field: "spec.ratio", Message: "should be less than 1"},
		{Name: "multipleOf", Change: set("step", int64(7)), Field: "spec.step", Message: "should be a multiple of 5"},
		{Name: "minLength", Change: set("name", ""), Field: "spec.name", Message: "should be at least 1 chars long"},
		{Name: "maxLength", Change: set("name", "abcdefghijklmnopqrstu"), Field: "spec.name", Message: "Too long"},
		{Name: "pattern", Change: set("name", "Abc"), Field: "spec.name", Message: "should match '^[a-z]+$'"},
		{Name: "format", Change: set("email", "not-an-email"), Field: "spec.email", Message: "must be of type email"},
		{Name: "enum with default", Change: set("mode", "medium"), Field: "spec.mode", Message: `Unsupported value: "medium"`},
		{Name: "listType set", Change: set("tags", []any{"a", "a"}), Field: "spec.tags[1]", Message: "Duplicate value"},
		{Name: "listType map", Change: set("items", []any{map[string]any{"name": "x"}, map[string]any{"name": "x", "value": int64(1)}}), Field: "spec.items[1]", Message: "Duplicate value"},
		{Name: "maxItems", Change: set("tags", []any{"a", "b", "c", "d", "e", "f"}), Field: "spec.tags", Message: "must have at most 5 items"},
		{Name: "items.pattern", Change: set("tags", []any{"A"}), Field: "spec.tags[0]", Message: "should match '^[a-z]+$'"},
		{Name: "maxProperties", Change: set("labels", map[string]any{"a": "1", "b": "2", "c": "3", "d": "4"}), Field: "spec.labels", Message: "must have at most 3 items"},
		{Name: "fixed-length array", Change: set("array", []any{int64(1), int64(2), int64(3)}), Field: "spec.array", Message: "must have at most 2 items"},
		{Name: "required by default", Change: del("string"), Field: "spec.string", Message: "Required value"},
		{Name: "required declared", Change: del("mustHave"), Field: "spec.mustHave", Message: "Required value"},
		{Name: "required nested", Change: set("nested", map[string]any{}), Field: "spec.nested.a", Message: "Required value"},
		{Name: "list-map key required", Change: set("items", []any{map[string]any{"value": int64(1)}}), Field: "spec.items[0].name", Message: "Required value"},
		{Name: "type", Change: set("int32", "x"), Field: "spec.int32", Message: "must be of type integer"},
		{Name: "quantity pattern", Change: set("quantity", "1x"), Field: "spec.quantity", Message: "should match"},
		{Name: "embedded resource kind", Change: set("embedded", map[string]any{"apiVersion": "v1", "metadata": map[string]any{"name": "x"}}), Field: "spec.embedded.kind", Message: "Required value"},
		{Name: "CEL on a field", Change: set("name", "admin"), Field: "spec.name", Message: "admin is reserved", CEL: true},
		{Name: "CEL on a type", Change: set("window", map[string]any{"start": int64(5), "end": int64(1)}), Field: "spec.window", Message: "start must not be after end", CEL: true},
	}
}
