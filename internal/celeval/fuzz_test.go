package celeval

import (
	"context"
	"encoding/json"
	"testing"
)

// FuzzCompileAndEvaluate compiles random rules on a schema of every kind
// (estimating their costs as a definition's are) and evaluates them on
// random objects: an error is fine, a panic or an
// evaluation that does not end is not.
func FuzzCompileAndEvaluate(f *testing.F) {
	f.Add("self.name.size() > 2", `{"name":"abc","n":1,"l":[1,2],"m":{"a":"b"}}`)
	f.Add("self.l.all(x, self.l.all(y, x + y > 0))", `{"l":[1,2,3,4,5,6,7,8,9]}`)
	f.Add("self.name.matches('^(a+)+$') && self.name.find('a') == 'a'", `{"name":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"}`)
	f.Add("self.m.all(k, v, k.startsWith(v)) && self.l.sum() < 10 && self.l.min() >= 0", `{"m":{"a":"a"},"l":[]}`)
	f.Add("url(self.name).getHost() == '' || self.ios == 1", `{"name":"http://x","ios":"a"}`)
	f.Add("self.free.x.y[0] == self.ios", `{"free":{"x":{"y":[1]}},"ios":1}`)
	f.Add("isSemver(self.name, true) && semver(self.name, true).isLessThan(semver('2.0.0')) && semver(self.name).major() >= 1", `{"name":"v1.2"}`)
	f.Add("!format.dns1123Label().validate(self.name).hasValue() && format.named(self.m.a).orValue(format.uuid()).validate(self.name).orValue([]).size() < 2", `{"name":"a-b","m":{"a":"uri"}}`)
	f.Fuzz(func(t *testing.T, rule, obj string) {
		schema := map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name": map[string]any{"type": "string"},
				"n":    map[string]any{"type": "integer"},
				"l":    map[string]any{"type": "array", "items": map[string]any{"type": "integer"}},
				"m":    map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
				"ios":  map[string]any{"x-kubernetes-int-or-string": true},
				"free": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
			},
			"x-kubernetes-validations": []any{
				map[string]any{"rule": rule, "messageExpression": rule},
				map[string]any{"rule": rule, "optionalOldSelf": true},
			},
		}
		CheckDefinition(schema, nil, true)
		v, err := New(schema, Options{PerCallLimit: 100_000, Budget: 1_000_000})
		if err != nil {
			return
		}
		var o map[string]any
		if json.Unmarshal([]byte(obj), &o) != nil {
			return
		}
		v.Validate(context.Background(), o, nil)
		v.Validate(context.Background(), o, o)
		if e, err := CompileExpr(rule, []string{"object", "oldObject"}, Options{PerCallLimit: 100_000}); err == nil {
			_, _ = e.Eval(context.Background(), map[string]any{"object": o, "oldObject": nil})
		}
	})
}
