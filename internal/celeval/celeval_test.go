package celeval

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// evalSelf compiles rule on a schema with one field of each kind and
// evaluates it on obj.
func evalSelf(t *testing.T, rule string, obj map[string]any) (string, error) {
	t.Helper()
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":      map[string]any{"type": "string"},
			"count":     map[string]any{"type": "integer"},
			"ratio":     map[string]any{"type": "number"},
			"on":        map[string]any{"type": "boolean"},
			"ints":      map[string]any{"type": "array", "items": map[string]any{"type": "integer"}},
			"strs":      map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"labels":    map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
			"port":      map[string]any{"x-kubernetes-int-or-string": true},
			"free":      map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
			"timeout":   map[string]any{"type": "string", "format": "duration"},
			"at":        map[string]any{"type": "string", "format": "date-time"},
			"dash-ed":   map[string]any{"type": "string"},
			"namespace": map[string]any{"type": "string"},
		},
		"x-kubernetes-validations": []any{map[string]any{"rule": rule, "message": "failed"}},
	}
	v, err := New(schema, Options{})
	if err != nil {
		return "", err
	}
	errs := v.Validate(context.Background(), obj, nil)
	if len(errs) == 0 {
		return "true", nil
	}
	return errs.ToAggregate().Error(), nil
}

var sample = map[string]any{
	"apiVersion": "example.com/v1", "kind": "Thing",
	"metadata": map[string]any{"name": "n1", "namespace": "ns"},
	"name":     "alpha-beta", "count": int64(3), "ratio": int64(2), "on": true,
	"ints":    []any{int64(1), int64(2), int64(3)},
	"strs":    []any{"b", "a", "c", "a"},
	"labels":  map[string]any{"app": "web"},
	"port":    "http",
	"free":    map[string]any{"x": int64(1)},
	"timeout": "1m30s", "at": "2024-01-02T03:04:05Z", "dash-ed": "d", "namespace": "kw",
}

func TestFunctionFamilies(t *testing.T) {
	tests := []struct {
		family, rule string
	}{
		{"standard", "self.count == 3 && self.name.startsWith('alpha') && size(self.ints) == 3"},
		{"standard", "self.ratio == 2.0 && self.on"},
		{"standard", "self.count < 3.5 && self.ratio > 1"},
		{"macros", "self.ints.all(i, i > 0) && self.ints.exists(i, i == 2) && self.ints.exists_one(i, i == 3)"},
		{"macros", "self.ints.map(i, i * 2) == [2, 4, 6] && self.ints.filter(i, i > 1) == [2, 3]"},
		{"has", "has(self.name) && !has(self.free.missing)"},
		{"has", "has(self.labels) && 'app' in self.labels && !has(self.free.y) && has(self.free.x)"},
		{"root", "self.metadata.name == 'n1' && self.kind == 'Thing' && self.apiVersion == 'example.com/v1'"},
		{"escaping", "self.dash__dash__ed == 'd' && self.__namespace__ == 'kw'"},
		{"int-or-string", "self.port == 'http'"},
		{"formats", "self.timeout == duration('90s') && self.at == timestamp('2024-01-02T03:04:05Z')"},
		{"strings", "self.name.split('-') == ['alpha', 'beta'] && self.name.upperAscii() == 'ALPHA-BETA'"},
		{"strings", "self.name.indexOf('b') == 6 && self.name.replace('-', '_') == 'alpha_beta' && self.name.substring(0, 5) == 'alpha'"},
		{"strings", "['a', 'b'].join(',') == 'a,b' && '  x '.trim() == 'x' && 'abc'.charAt(1) == 'b'"},
		{"lists", "self.ints.isSorted() && !self.strs.isSorted() && self.ints.sum() == 6"},
		{"lists", "self.ints.min() == 1 && self.ints.max() == 3 && self.strs.min() == 'a' && self.strs.max() == 'c'"},
		{"lists", "self.strs.indexOf('a') == 1 && self.strs.lastIndexOf('a') == 3 && self.strs.indexOf('z') == -1"},
		{"lists", "self.ints.indexOf([2, 3]) == 1 && [1.5, 2.5].sum() == 4.0 && [duration('1s'), duration('2s')].sum() == duration('3s')"},
		{"lists", "[3, 1, 2].sort() == [1, 2, 3] && [1, 1, 2].distinct() == [1, 2] && [[1], [2]].flatten() == [1, 2]"},
		{"sets", "sets.contains(self.strs, ['a', 'b']) && sets.intersects(self.ints, [3, 4]) && sets.equivalent([1, 2], [2, 1])"},
		{"regex", "self.name.matches('^[a-z-]+$') && self.name.find('[a-z]+') == 'alpha' && self.name.findAll('[a-z]+') == ['alpha', 'beta']"},
		{"regex", "self.name.findAll('[a-z]', 2) == ['a', 'l'] && 'xyz'.find('[0-9]') == ''"},
		{"url", "url('https://example.com:8443/a%20b?x=1&x=2').getScheme() == 'https' && url('https://example.com:8443/p').getPort() == '8443'"},
		{"url", "url('https://[::1]:80/p').getHostname() == '::1' && url('https://[::1]:80/p').getHost() == '[::1]:80' && isURL('/abs') && !isURL('rel')"},
		{"url", "url('https://x/a%20b?x=1&x=2').getEscapedPath() == '/a%20b' && url('https://x/?x=1&x=2').getQuery()['x'] == ['1', '2']"},
		{"quantity", "quantity('1Gi').isGreaterThan(quantity('1000Mi')) && quantity('1.5').sign() == 1 && !quantity('1.5').isInteger() && quantity('2k').asInteger() == 2000"},
		{"quantity", "quantity('1Gi').add(quantity('1Gi')) == quantity('2Gi') && quantity('3').sub(1).compareTo(quantity('2')) == 0 && quantity('500m').asApproximateFloat() == 0.5"},
		{"quantity", "isQuantity('10Mi') && !isQuantity('ten') && quantity('1').isLessThan(quantity('2'))"},
		{"network", "ip('10.0.0.1').family() == 4 && cidr('10.0.0.0/8').containsIP(ip('10.1.2.3')) && isIP('::1') && !isCIDR('x')"},
		{"optionals", "self.?name.orValue('d') == 'alpha-beta' && self.labels[?'app'].hasValue() && !self.labels[?'x'].hasValue()"},
		{"two-variable comprehensions", "self.labels.all(k, v, k == 'app' && v == 'web') && self.strs.exists(i, v, i == 0 && v == 'b')"},
		{"timestamps", "self.at.getFullYear() == 2024 && self.timeout.getSeconds() == 90"},
	}
	for _, tt := range tests {
		t.Run(tt.family+"/"+tt.rule, func(t *testing.T) {
			got, err := evalSelf(t, tt.rule, sample)
			if err != nil {
				t.Fatal(err)
			}
			if got != "true" {
				t.Errorf("rule is false on the sample: %s", got)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name, rule, want, unsupported string
	}{
		{"syntax error", "self.name ==", "Syntax error", ""},
		{"unknown field", "self.nope == 1", "undefined field 'nope'", ""},
		{"wrong type", "self.name == 1", "found no matching overload", ""},
		{"not a boolean", "self.name", "must evaluate to a bool", ""},
		{"unknown function", "self.name.frobnicate()", "undeclared reference to 'frobnicate'", ""},
		{"authorizer is for admission, not rules", "authorizer.path('/healthz').check('get').allowed()", "undeclared reference to 'authorizer'", ""},
		{"sum of strings", "self.strs.sum() == 'x'", "found no matching overload for 'sum'", ""},
		{"object literal", "self.labels == {'a': 1}", "found no matching overload", ""},
		{"bad regex literal", "self.name.matches('[')", "invalid matches argument", ""},
		{"unknown variable", "other == 1", "undeclared reference to 'other'", ""},
		{"has of an unknown field", "has(self.nope)", "undefined field 'nope'", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := evalSelf(t, tt.rule, sample)
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *CompileError", err)
			}
			if !strings.Contains(ce.Detail, tt.want) {
				t.Errorf("detail %q does not contain %q", ce.Detail, tt.want)
			}
			if ce.Unsupported != tt.unsupported {
				t.Errorf("Unsupported = %q, want %q", ce.Unsupported, tt.unsupported)
			}
		})
	}
}

func TestRuntimeErrorsAreFieldErrors(t *testing.T) {
	tests := []struct {
		name, rule, want string
	}{
		{"missing field", "self.name == 'x' || self.free.y == 1", "no such key: y evaluating rule: failed"},
		{"min of empty list", "[0].filter(x, x > 1).min() == 0", "min called on empty list evaluating rule: failed"},
		{"division by zero", "self.count / (self.count - 3) == 1", "division by zero evaluating rule: failed"},
		{"int-or-string compared to an int", "self.port > 1", "call arguments did not match a supported operator"},
		{"false at the root", "self.count == 4", "<nil>: Invalid value: failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := evalSelf(t, tt.rule, sample)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want it to contain %q", got, tt.want)
			}
		})
	}
}

func ruleSchema(rules ...map[string]any) map[string]any {
	vs := make([]any, len(rules))
	for i, r := range rules {
		vs[i] = r
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"spec": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"name":   map[string]any{"type": "string", "x-kubernetes-validations": vs},
					"items":  map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"key"}, "items": map[string]any{"type": "object", "properties": map[string]any{"key": map[string]any{"type": "string"}, "v": map[string]any{"type": "integer", "x-kubernetes-validations": []any{map[string]any{"rule": "self >= oldSelf", "message": "v may only grow"}}}}}},
					"labels": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string", "x-kubernetes-validations": []any{map[string]any{"rule": "self != ''", "message": "empty label"}}}},
				},
			},
		},
	}
}

func TestValidateReportsAsKubeAPIServer(t *testing.T) {
	spec := func(name string) map[string]any {
		return map[string]any{"spec": map[string]any{"name": name}}
	}
	tests := []struct {
		name     string
		rule     map[string]any
		obj, old map[string]any
		want     string // "" for no error
	}{
		{"message", map[string]any{"rule": "self != 'admin'", "message": "admin is reserved"}, spec("admin"), nil, `spec.name: Invalid value: "admin": admin is reserved`},
		{"no message", map[string]any{"rule": "self != 'admin'"}, spec("admin"), nil, `spec.name: Invalid value: "admin": failed rule: self != 'admin'`},
		{"messageExpression", map[string]any{"rule": "self != 'admin'", "messageExpression": "self + ' is reserved'"}, spec("admin"), nil, `spec.name: Invalid value: "admin": admin is reserved`},
		{"messageExpression failing falls back", map[string]any{"rule": "self != 'admin'", "message": "m", "messageExpression": "self + string(1/0)"}, spec("admin"), nil, `spec.name: Invalid value: "admin": m`},
		{"forbidden", map[string]any{"rule": "self != 'admin'", "message": "no", "reason": "FieldValueForbidden"}, spec("admin"), nil, `spec.name: Forbidden: no`},
		{"required", map[string]any{"rule": "self != 'admin'", "message": "no", "reason": "FieldValueRequired"}, spec("admin"), nil, `spec.name: Required value: no`},
		{"duplicate", map[string]any{"rule": "self != 'admin'", "message": "no", "reason": "FieldValueDuplicate"}, spec("admin"), nil, `spec.name: Duplicate value: "admin"`},
		{"passes", map[string]any{"rule": "self != 'admin'"}, spec("bob"), nil, ""},
		{"transition rule skipped on create", map[string]any{"rule": "self == oldSelf", "message": "immutable"}, spec("b"), nil, ""},
		{"transition rule on update", map[string]any{"rule": "self == oldSelf", "message": "immutable"}, spec("b"), spec("a"), `spec.name: Invalid value: "b": immutable`},
		{"transition rule skipped without old value", map[string]any{"rule": "self == oldSelf", "message": "immutable"}, spec("b"), map[string]any{"spec": map[string]any{}}, ""},
		{"optionalOldSelf on create", map[string]any{"rule": "!oldSelf.hasValue() || self == oldSelf.value()", "message": "immutable", "optionalOldSelf": true}, spec("b"), nil, ""},
		{"optionalOldSelf on update", map[string]any{"rule": "!oldSelf.hasValue() || self == oldSelf.value()", "message": "immutable", "optionalOldSelf": true}, spec("b"), spec("a"), `spec.name: Invalid value: "b": immutable`},
		{"map list items correlated by key", map[string]any{"rule": "true"},
			map[string]any{"spec": map[string]any{"items": []any{map[string]any{"key": "b", "v": int64(1)}, map[string]any{"key": "a", "v": int64(5)}}}},
			map[string]any{"spec": map[string]any{"items": []any{map[string]any{"key": "a", "v": int64(4)}, map[string]any{"key": "b", "v": int64(2)}}}},
			`spec.items[0].v: Invalid value: 1: v may only grow`},
		{"map values at their key", map[string]any{"rule": "true"},
			map[string]any{"spec": map[string]any{"labels": map[string]any{"a": "x", "b": ""}}}, nil, `spec.labels[b]: Invalid value: "": empty label`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := New(ruleSchema(tt.rule), Options{})
			if err != nil {
				t.Fatal(err)
			}
			errs := v.Validate(context.Background(), tt.obj, tt.old)
			got := ""
			if len(errs) > 0 {
				got = errs.ToAggregate().Error()
			}
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestFieldPath(t *testing.T) {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"a": map[string]any{"type": "string"},
			"b": map[string]any{"type": "object", "properties": map[string]any{"c.d": map[string]any{"type": "string"}}},
		},
		"x-kubernetes-validations": []any{
			map[string]any{"rule": "self.a != 'x'", "message": "a", "fieldPath": ".a"},
			map[string]any{"rule": "self.a != 'x'", "message": "cd", "fieldPath": ".b['c.d']"},
		},
	}
	v, err := New(schema, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := v.Validate(context.Background(), map[string]any{"a": "x"}, nil).ToAggregate().Error()
	want := `[a: Invalid value: a, b['c.d']: Invalid value: cd]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	schema["x-kubernetes-validations"] = []any{map[string]any{"rule": "true", "fieldPath": ".nope"}}
	var ce *CompileError
	if _, err := New(schema, Options{}); !errors.As(err, &ce) || !strings.Contains(ce.Detail, "nope is not in the schema") {
		t.Errorf("fieldPath to an unknown field: %v", err)
	}
}

func TestHostileRuleStopsAtItsCostLimit(t *testing.T) {
	schema := map[string]any{
		"type":       "object",
		"properties": map[string]any{"l": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}}},
		"x-kubernetes-validations": []any{
			map[string]any{"rule": "self.l.all(a, self.l.all(b, self.l.all(c, self.l.all(d, a + b + c + d >= 0))))"},
			map[string]any{"rule": "false", "message": "never reached"},
		},
	}
	v, err := New(schema, Options{PerCallLimit: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	l := make([]any, 100)
	for i := range l {
		l[i] = int64(i)
	}
	start := time.Now()
	errs := v.Validate(context.Background(), map[string]any{"l": l}, nil)
	t.Logf("stopped after %v", time.Since(start))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "no further validation rules will be run due to call cost exceeds limit") {
		t.Errorf("errors: %v", errs)
	}

	e, err := CompileExpr("object.l.all(a, object.l.all(b, object.l.all(c, a + b + c >= 0)))", []string{"object"}, Options{PerCallLimit: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Eval(context.Background(), map[string]any{"object": map[string]any{"l": l}}); !errors.Is(err, ErrCostLimit) {
		t.Errorf("Eval: %v, want ErrCostLimit", err)
	}
}

func TestBudgetSpansTheObject(t *testing.T) {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{"items": map[string]any{"type": "array", "items": map[string]any{
			"type": "object", "properties": map[string]any{"l": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}}},
			"x-kubernetes-validations": []any{map[string]any{"rule": "self.l.all(a, a >= 0)"}},
		}}},
	}
	v, err := New(schema, Options{Budget: 1000})
	if err != nil {
		t.Fatal(err)
	}
	l := make([]any, 100)
	for i := range l {
		l[i] = int64(i)
	}
	items := make([]any, 50)
	for i := range items {
		items[i] = map[string]any{"l": l}
	}
	errs := v.Validate(context.Background(), map[string]any{"items": items}, nil)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "running out of cost budget") {
		t.Errorf("errors: %v", errs)
	}
}

func TestCompileExpr(t *testing.T) {
	tests := []struct {
		name, expr string
		vars       map[string]any
		want       bool
		err        string
	}{
		{"true", "object.metadata.name == 'a'", map[string]any{"object": map[string]any{"metadata": map[string]any{"name": "a"}}}, true, ""},
		{"false", "has(object.metadata.labels) && object.metadata.labels['x'] == 'y'", map[string]any{"object": map[string]any{"metadata": map[string]any{}}}, false, ""},
		{"null oldObject", "oldObject == null", map[string]any{"oldObject": nil}, true, ""},
		{"request", "request.operation == 'CREATE'", map[string]any{"request": map[string]any{"operation": "CREATE"}}, true, ""},
		{"evaluation error", "object.nope == 1", map[string]any{"object": map[string]any{}}, false, "no such key: nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := CompileExpr(tt.expr, []string{"object", "oldObject", "request"}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			vars := map[string]any{"object": nil, "oldObject": nil, "request": nil}
			for k, v := range tt.vars {
				vars[k] = v
			}
			got, err := e.Eval(context.Background(), vars)
			if tt.err != "" {
				var ee *EvalError
				if !errors.As(err, &ee) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want an *EvalError with %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	for _, bad := range []string{"authorizer.group('').resource('x').check('get').allowed()", "'x'", "request ==="} {
		if _, err := CompileExpr(bad, []string{"object", "oldObject", "request"}, Options{}); err == nil {
			t.Errorf("%s compiled", bad)
		}
	}
}

func TestUnchangedValueIsNotRefusedOnUpdate(t *testing.T) {
	v, err := New(ruleSchema(map[string]any{"rule": "self != 'admin'", "message": "admin is reserved"}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	old := map[string]any{"spec": map[string]any{"name": "admin"}}
	obj := map[string]any{"spec": map[string]any{"name": "admin", "labels": map[string]any{"a": "b"}}}
	if errs := v.Validate(context.Background(), obj, old); len(errs) != 0 {
		t.Errorf("unchanged invalid value refused: %v", errs)
	}
	if errs := v.Validate(context.Background(), obj, nil); len(errs) != 1 {
		t.Errorf("invalid value on create: %v", errs)
	}
}
