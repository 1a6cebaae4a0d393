package celeval

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func withRule(s map[string]any, rules ...string) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		out[k] = v
	}
	var rs []any
	for _, r := range rules {
		rs = append(rs, map[string]any{"rule": r})
	}
	out["x-kubernetes-validations"] = rs
	return out
}

func specOf(props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{"spec": map[string]any{"type": "object", "properties": props}}}
}

func TestEstimatedCostsFollowTheDeclaredBounds(t *testing.T) {
	str := map[string]any{"type": "string"}
	str10 := map[string]any{"type": "string", "maxLength": int64(10)}
	tests := []struct {
		name             string
		props            map[string]any
		perCall, card    uint64
		unboundedContain string
	}{
		// Each contains on a string of at most 10 characters (40 bytes) costs
		// 1 plus a tenth of 40; the items of an unbounded list of such
		// strings number 3 MiB over 3 bytes.
		{"rule on the items of an unbounded list", map[string]any{"l": map[string]any{"type": "array", "items": withRule(str10, "self.contains('a') && self.contains('b')")}}, 10, 1 << 20, "spec.l (maxItems)"},
		{"rule on the items of a bounded list", map[string]any{"l": map[string]any{"type": "array", "maxItems": int64(7), "items": withRule(str10, "self.contains('a')")}}, 5, 7, ""},
		{"rule on the values of a bounded map", map[string]any{"m": map[string]any{"type": "object", "maxProperties": int64(3), "additionalProperties": withRule(str10, "self.contains('a')")}}, 5, 3, ""},
		{"rule on the values of an unbounded map", map[string]any{"m": map[string]any{"type": "object", "additionalProperties": withRule(str10, "self.contains('a')")}}, 5, 3 * 1024 * 1024 / 3, "spec.m (maxProperties)"},
		{"enum bounds a string", map[string]any{"e": withRule(map[string]any{"type": "string", "enum": []any{"abcdefghij"}}, "self.contains('a')")}, 2, 1, ""},
		{"unbounded string", map[string]any{"s": withRule(str, "self.contains('a')")}, 314574, 1, "spec.s (maxLength)"},
		{"list function over strings", map[string]any{"l": withRule(map[string]any{"type": "array", "maxItems": int64(10), "items": str10}, "self.isSorted()")}, 51, 1, ""},
		{"regex over an unbounded string", map[string]any{"s": withRule(str, "self.matches('a+')")}, 314574, 1, "spec.s (maxLength)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := CheckDefinition(specOf(tt.props), field.NewPath("schema"), true)
			if len(r.Costs) != 1 {
				t.Fatalf("costs %v, want one", r.Costs)
			}
			c := r.Costs[0]
			if c.PerCall != tt.perCall || c.Cardinality != tt.card {
				t.Errorf("per call %d, cardinality %d; want %d, %d", c.PerCall, c.Cardinality, tt.perCall, tt.card)
			}
			if tt.unboundedContain != "" && !slices.Contains(c.Unbounded, tt.unboundedContain) {
				t.Errorf("unbounded %q, want %q among them", c.Unbounded, tt.unboundedContain)
			}
		})
	}
}

func TestDefinitionChecksAreWordedAsKubeAPIServer(t *testing.T) {
	str := map[string]any{"type": "string"}
	base := field.NewPath("spec", "validation", "openAPIV3Schema")
	hint := " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
	rule := base.String() + ".properties[spec].properties[l].x-kubernetes-validations[0]"
	tests := []struct {
		name          string
		schema        map[string]any
		perExpression bool
		want          []string
	}{
		{"rule over an unbounded list of unbounded strings", specOf(map[string]any{"l": withRule(map[string]any{"type": "array", "items": str}, "self.all(x, x.contains('a'))")}), true, []string{
			rule + ".rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x" + hint,
			rule + ".rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
			base.String() + ": Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x" + hint,
		}},
		{"unchanged schema skips the limit of one expression", specOf(map[string]any{"l": withRule(map[string]any{"type": "array", "items": map[string]any{"type": "string", "maxLength": int64(10)}}, "self.all(x, x.contains('a') && x.contains('b'))")}), false, nil},
		{"same rule over bounds", specOf(map[string]any{"l": withRule(map[string]any{"type": "array", "maxItems": int64(10), "items": map[string]any{"type": "string", "maxLength": int64(10)}}, "self.all(x, x.contains('a'))")}), true, nil},
		{"rule that does not compile", specOf(map[string]any{"l": withRule(map[string]any{"type": "array", "maxItems": int64(1), "items": str}, "self.nope == 1")}), true, []string{
			rule + `.rule: Invalid value: {"Rule":"self.nope == 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: type 'list(string)' does not support field selection`,
		}},
		{"rule that is not a boolean", specOf(map[string]any{"l": withRule(map[string]any{"type": "array", "maxItems": int64(1), "items": str}, "self.size()")}), true, []string{
			rule + `.rule: Invalid value: {"Rule":"self.size()","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: cel expression must evaluate to a bool`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range CheckDefinition(tt.schema, base, tt.perExpression).Errors {
				got = append(got, e.Error())
			}
			if len(got) != len(tt.want) {
				t.Fatalf("errors\n%q\nwant\n%q", got, tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("error %d\n%s\nwant prefix\n%s", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestAuthorizerInARuleRefusesTheDefinition(t *testing.T) {
	r := CheckDefinition(withRule(map[string]any{"type": "object"}, "authorizer.path('/healthz').check('get').allowed()"), nil, true)
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Error(), "compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer'") {
		t.Errorf("errors %v, want the rule refused", r.Errors)
	}
}

func TestDefinitionCheckOfSchemasWithoutTypesDoesNotFail(t *testing.T) {
	for _, s := range []map[string]any{
		specOf(map[string]any{"l": map[string]any{"type": "array", "items": withRule(map[string]any{"x-kubernetes-preserve-unknown-fields": true}, "self == self")}}),
		specOf(map[string]any{"l": map[string]any{"type": "array", "items": withRule(map[string]any{"type": "array"}, "self.size() > 0")}}),
		specOf(map[string]any{"l": withRule(map[string]any{"type": "object", "additionalProperties": map[string]any{"x-kubernetes-int-or-string": true}}, "self.all(k, k != '')")}),
	} {
		CheckDefinition(s, nil, true)
	}
}

func TestKubernetesLibraryCallsCostWhatKubeAPIServerCounts(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"strs": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	}, "x-kubernetes-validations": []any{map[string]any{"rule": "self.strs.isSorted()"}}}
	strs := make([]any, 200)
	for i := range strs {
		strs[i] = strings.Repeat("a", 10)
	}
	// isSorted costs a traversal of the list: a tenth of each string's
	// bytes, 200 in all, over a limit of 100.
	v, err := New(schema, Options{PerCallLimit: 100})
	if err != nil {
		t.Fatal(err)
	}
	errs := v.Validate(t.Context(), map[string]any{"strs": strs}, nil)
	if len(errs) != 1 || !strings.Contains(errs[0].Detail, "call cost exceeds limit") {
		t.Errorf("errors %v, want the call cost limit", errs)
	}
}
