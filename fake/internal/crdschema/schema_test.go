package crdschema

import (
	"encoding/json"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

func mustJSON(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return normalizeNumbers(m).(map[string]any)
}

// normalizeNumbers turns integral float64s into int64s, as the fake's
// decoder stores them.
func normalizeNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			t[k] = normalizeNumbers(c)
		}
	case []any:
		for i, c := range t {
			t[i] = normalizeNumbers(c)
		}
	case float64:
		if t == float64(int64(t)) {
			return int64(t)
		}
	}
	return v
}

func TestCRDSchemaApply(t *testing.T) {
	tests := []struct {
		name, schema, in, want string
		wantErrs               int
	}{
		{"an object without properties keeps nothing",
			`{"type":"object","properties":{"spec":{"type":"object"}}}`,
			`{"apiVersion":"g/v1","kind":"K","metadata":{"name":"a"},"spec":{"x":1}}`,
			`{"apiVersion":"g/v1","kind":"K","metadata":{"name":"a"},"spec":{}}`, 0},
		{"preserving at the root keeps everything",
			`{"type":"object","x-kubernetes-preserve-unknown-fields":true}`,
			`{"apiVersion":"g/v1","kind":"K","metadata":{"name":"a"},"spec":{"x":1},"other":[1]}`,
			`{"apiVersion":"g/v1","kind":"K","metadata":{"name":"a"},"spec":{"x":1},"other":[1]}`, 0},
		{"an embedded resource keeps its apiVersion, kind and metadata",
			`{"type":"object","properties":{"spec":{"type":"object","properties":{"tmpl":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"data":{"type":"string"}}}}}}}`,
			`{"spec":{"tmpl":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":"d","junk":1}}}`,
			`{"spec":{"tmpl":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":"d"}}}`, 0},
		{"int-or-string takes both and nothing else",
			`{"type":"object","properties":{"a":{"x-kubernetes-int-or-string":true},"b":{"x-kubernetes-int-or-string":true},"c":{"x-kubernetes-int-or-string":true}}}`,
			`{"a":1,"b":"50%","c":true}`, `{"a":1,"b":"50%","c":true}`, 1},
		{"null is kept if nullable, else dropped or replaced by a default",
			`{"type":"object","properties":{"a":{"type":"string","nullable":true},"b":{"type":"string"},"c":{"type":"string","default":"d"}}}`,
			`{"a":null,"b":null,"c":null}`, `{"a":null,"c":"d"}`, 0},
		{"a null item is refused unless nullable",
			`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}}}`,
			`{"a":["x",null]}`, `{"a":["x",null]}`, 1},
		{"exclusive bounds and multipleOf",
			`{"type":"object","properties":{"a":{"type":"number","minimum":0,"exclusiveMinimum":true},"b":{"type":"integer","multipleOf":5}}}`,
			`{"a":0,"b":7}`, `{"a":0,"b":7}`, 2},
		{"a set repeats no item, reported once at its second occurrence",
			`{"type":"object","properties":{"a":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}}}`,
			`{"a":["x","y","x","x","y"]}`, `{"a":["x","y","x","x","y"]}`, 2},
		{"a map list repeats no key, missing keys counting as a value",
			`{"type":"object","properties":{"a":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k","p"],"items":{"type":"object","properties":{"k":{"type":"string"},"p":{"type":"integer"},"v":{"type":"string"}}}}}}`,
			`{"a":[{"k":"x","p":1,"v":"1"},{"k":"x","p":2},{"k":"x","p":1,"v":"2"},{"v":"3"},{"v":"4"}]}`,
			`{"a":[{"k":"x","p":1,"v":"1"},{"k":"x","p":2},{"k":"x","p":1,"v":"2"},{"v":"3"},{"v":"4"}]}`, 2},
		{"known formats are checked, unknown ones and non-strings are not",
			`{"type":"object","properties":{"a":{"type":"string","format":"date-time"},"b":{"type":"string","format":"uuid"},"c":{"type":"string","format":"bogus"},"d":{"type":"integer","format":"int32"}}}`,
			`{"a":"now","b":"0b0f3c52-7d4e-4f7a-9a55-1c2d3e4f5a6b","c":"x","d":1}`, `{"a":"now","b":"0b0f3c52-7d4e-4f7a-9a55-1c2d3e4f5a6b","c":"x","d":1}`, 1},
		{"int32 and float formats bound their numbers",
			`{"type":"object","properties":{"a":{"type":"integer","format":"int32"},"b":{"type":"integer","format":"int32"},"c":{"type":"number","format":"float"},"d":{"type":"integer","format":"int64"}}}`,
			`{"a":2147483647,"b":2147483648,"c":1e39,"d":2147483648}`, `{"a":2147483647,"b":2147483648,"c":1e39,"d":2147483648}`, 2},
		{"atomic lists may repeat items",
			`{"type":"object","properties":{"a":{"type":"array","x-kubernetes-list-type":"atomic","items":{"type":"string"}}}}`,
			`{"a":["x","x"]}`, `{"a":["x","x"]}`, 0},
		{"unique items and item counts",
			`{"type":"object","properties":{"a":{"type":"array","uniqueItems":true,"maxItems":2,"items":{"type":"integer"}}}}`,
			`{"a":[1,2,1]}`, `{"a":[1,2,1]}`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Schema(mustJSON(t, tt.schema))
			u := mustJSON(t, tt.in)
			errs := s.Apply(u, nil, nil)
			if len(errs) != tt.wantErrs {
				t.Errorf("errors %v, want %d", errs, tt.wantErrs)
			}
			if want := mustJSON(t, tt.want); !reflect.DeepEqual(u, want) {
				t.Errorf("got %v, want %v", u, want)
			}
		})
	}
}

func FuzzCRDSchemaApply(f *testing.F) {
	f.Add(`{"type":"object","properties":{"spec":{"type":"object","required":["a"],"properties":{"a":{"type":"integer","default":1}}}}}`, `{"spec":{"a":"x","b":[1,{}]}}`)
	f.Add(`{"type":"object","additionalProperties":{"type":"array","items":{"type":"string","pattern":"["}}}`, `{"k":["v",null,3]}`)
	f.Add(`{"type":"object","x-kubernetes-validations":[{"rule":"self.a.all(x, x > 0)","messageExpression":"'bad ' + string(size(self.a))"}],"properties":{"a":{"type":"array","items":{"type":"integer"}},"m":{"type":"object","additionalProperties":{"type":"string","x-kubernetes-validations":[{"rule":"self != oldSelf","optionalOldSelf":true}]}}}}`, `{"a":[1,-2.0,"x"],"m":{"k":"v"}}`)
	f.Add(`{"type":"object","properties":{"x":{"x-kubernetes-int-or-string":true,"x-kubernetes-validations":[{"rule":"self == 1 || self == 'a'","fieldPath":".y","reason":"Nope"}]}}}`, `{"x":2.5}`)
	f.Fuzz(func(t *testing.T, schema, obj string) {
		var s, u map[string]any
		if json.Unmarshal([]byte(schema), &s) != nil || json.Unmarshal([]byte(obj), &u) != nil || u == nil {
			return
		}
		old := runtime.DeepCopyJSON(u)
		Schema(s).Apply(u, nil, nil) // must not panic, whatever the schema or object
		// Nor an update (ratcheted against old, the object before pruning).
		Schema(s).Apply(runtime.DeepCopyJSON(u), old, nil)
	})
}

// An update's values equal to their old ones are not refused for the
// schema's checks, as kube-apiserver ratchets them; an item of a set has
// no old value of its own and is ratcheted only with its whole list.
func TestCRDSchemaChecksRatchetUnchangedValues(t *testing.T) {
	s := Schema(mustJSON(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
		"name":{"type":"string","maxLength":3},"other":{"type":"string"},
		"tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string","maxLength":3}},
		"items":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","properties":{"k":{"type":"string"},"v":{"type":"integer","maximum":5}}}}}}}}`))
	old := `{"spec":{"name":"long","other":"a","tags":["long"],"items":[{"k":"a","v":9},{"k":"b","v":1}]}}`
	tests := []struct {
		name, obj string
		want      []string
	}{
		{"other field changed", `{"spec":{"name":"long","other":"b","tags":["long"],"items":[{"k":"a","v":9},{"k":"b","v":1}]}}`, nil},
		{"map list reordered", `{"spec":{"name":"long","other":"a","tags":["long"],"items":[{"k":"b","v":2},{"k":"a","v":9}]}}`, nil},
		{"name changed", `{"spec":{"name":"longer","other":"a","tags":["long"],"items":[{"k":"a","v":9},{"k":"b","v":1}]}}`, []string{"spec.name"}},
		{"set changed", `{"spec":{"name":"long","other":"a","tags":["long","x"],"items":[{"k":"a","v":9},{"k":"b","v":1}]}}`, []string{"spec.tags[0]"}},
		{"map list item changed", `{"spec":{"name":"long","other":"a","tags":["long"],"items":[{"k":"a","v":8},{"k":"b","v":1}]}}`, []string{"spec.items[0].v"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range s.Apply(mustJSON(t, tt.obj), mustJSON(t, old), nil) {
				got = append(got, e.Field)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("errors at %q, want %q", got, tt.want)
			}
		})
	}
}

// An update is checked for list types only when the object it replaces
// passes that check, as kube-apiserver ratchets it.
func TestCRDSchemaListTypesRatchet(t *testing.T) {
	s := Schema(mustJSON(t, `{"type":"object","properties":{"a":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}}}`))
	valid, invalid := mustJSON(t, `{"a":["x"]}`), mustJSON(t, `{"a":["x","x"]}`)
	if errs := s.Apply(mustJSON(t, `{"a":["y","y"]}`), valid, nil); len(errs) != 1 {
		t.Errorf("update of a valid object: %v, want one Duplicate", errs)
	}
	if errs := s.Apply(mustJSON(t, `{"a":["y","y"]}`), invalid, nil); len(errs) != 0 {
		t.Errorf("update of an invalid object: %v, want none", errs)
	}
}
