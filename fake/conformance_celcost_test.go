package fake_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// celDefinitionCases check the CEL rules of a CustomResourceDefinition
// when it is written, on both servers.
func celDefinitionCases() []conformanceCase {
	return []conformanceCase{
		{"CELRulesOverTheEstimatedCostLimitRefuseTheDefinition", celCostLimits},
		{"CELRulesThatDoNotCompileRefuseTheDefinition", celCompileErrors},
		{"UpdatesLeavingValuesAsTheyWereAreRatcheted", celRatcheting},
	}
}

// costCRD is a definition of CostThings whose spec has the properties
// props.
func costCRD(name string, props map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": name + "." + widgetGroup},
		"spec": map[string]any{
			"group": widgetGroup, "scope": "Namespaced",
			"names": map[string]any{"plural": name, "singular": name[:len(name)-1], "kind": "CostThing" + name, "listKind": "CostThing" + name + "List"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec": map[string]any{"type": "object", "properties": props},
					},
				}},
			}},
		},
	}
}

// crdCauses creates the definition crd and returns the causes of the 422
// as "field: message", sorted (kube-apiserver reports the properties of a
// schema in no fixed order), or fails the test on another answer.
func crdCauses(e *env, crd map[string]any) []string {
	e.Helper()
	body, _ := json.Marshal(crd)
	err := e.c.Post().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Body(body).Do(e.ctx).Error()
	se, ok := err.(*apierrors.StatusError)
	if !ok || se.ErrStatus.Code != http.StatusUnprocessableEntity {
		e.Fatalf("create CRD: got %v, want 422 Invalid", err)
	}
	var out []string
	if se.ErrStatus.Details != nil {
		for _, c := range se.ErrStatus.Details.Causes {
			out = append(out, c.Field+": "+c.Message)
		}
	}
	slices.Sort(out)
	return out
}

func wantCauses(e *env, name string, got, want []string) {
	e.Helper()
	slices.Sort(want)
	if !slices.Equal(got, want) {
		e.Errorf("%s: causes\n%q\nwant\n%q", name, got, want)
	}
}

const costHint = " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"

func celCostLimits(e *env) {
	at := "spec.validation.openAPIV3Schema" // one schema for every version
	rule := func(r string) []any { return []any{map[string]any{"rule": r}} }
	str := func(maxLength int64, rules []any) map[string]any {
		m := map[string]any{"type": "string"}
		if maxLength > 0 {
			m["maxLength"] = maxLength
		}
		if rules != nil {
			m["x-kubernetes-validations"] = rules
		}
		return m
	}
	list := func(maxItems int64, items map[string]any, rules []any) map[string]any {
		m := map[string]any{"type": "array", "items": items}
		if maxItems > 0 {
			m["maxItems"] = maxItems
		}
		if rules != nil {
			m["x-kubernetes-validations"] = rules
		}
		return m
	}

	// A rule over every string of an unbounded list of unbounded strings.
	tagsRule := at + ".properties[spec].properties[tags].x-kubernetes-validations[0].rule"
	wantCauses(e, "unbounded list of unbounded strings", crdCauses(e, costCRD("costthings", map[string]any{
		"tags": list(0, str(0, nil), rule("self.all(t, t.contains('a'))")),
	})), []string{
		tagsRule + ": Forbidden: estimated rule cost exceeds budget by factor of more than 100x" + costHint,
		tagsRule + ": Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
		at + ": Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x" + costHint,
	})

	// A rule on each item of an unbounded list: its cost (10: each contains
	// costs 1 plus a tenth of the string's most bytes, 4 a character) is
	// multiplied by the most items the largest request holds (3 MiB over
	// the 3 bytes of the smallest item and its comma).
	itemRule := at + ".properties[spec].properties[names].items.x-kubernetes-validations[0].rule"
	wantCauses(e, "rule on the items of an unbounded list", crdCauses(e, costCRD("costthings", map[string]any{
		"names": list(0, str(10, rule("self.contains('a') && self.contains('b')")), nil),
	})), []string{
		itemRule + ": Forbidden: estimated rule cost exceeds budget by factor of " + factor(e, 10*1_048_576, 10_000_000) + costHint,
	})

	// Rules each under the limit whose costs add up to more than the
	// schema's: the four most expensive are named.
	props := map[string]any{}
	var want []string
	total := uint64(0)
	for i := range 12 {
		// contains costs 1 plus a tenth of the string's most bytes (4 a
		// character: 80), on each of the list's items.
		items := int64(1_100_000 - 1000*i)
		props[fmt.Sprintf("s%02d", i)] = list(items, str(20, rule("self.contains('a')")), nil)
		total += 9 * uint64(items)
	}
	for i := range 4 {
		want = append(want, fmt.Sprintf("%s.properties[spec].properties[s%02d].items.x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema", at, i))
	}
	want = append(want, at+": Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of "+factor(e, total, 100_000_000)+costHint)
	wantCauses(e, "rules adding up over the schema's limit", crdCauses(e, costCRD("costthings", props)), want)

	// Versions of different schemas are checked each at its own path.
	twoVersions := costCRD("costthings", map[string]any{"tags": list(0, str(0, nil), nil)})
	v1 := twoVersions["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
	v2 := costCRD("costthings", map[string]any{"tags": list(0, str(0, nil), rule("self.all(t, t.contains('a'))"))})["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
	v2["name"], v2["storage"] = "v2", false
	twoVersions["spec"].(map[string]any)["versions"] = []any{v1, v2}
	v2At := "spec.versions[1].schema.openAPIV3Schema"
	v2Rule := v2At + ".properties[spec].properties[tags].x-kubernetes-validations[0].rule"
	wantCauses(e, "second version's schema", crdCauses(e, twoVersions), []string{
		v2Rule + ": Forbidden: estimated rule cost exceeds budget by factor of more than 100x" + costHint,
		v2Rule + ": Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
		v2At + ": Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x" + costHint,
	})

	// The same rule over bounded lists and strings is accepted.
	req := e.serveCRD(costCRD("costthings", map[string]any{
		"tags":  list(10, str(10, nil), rule("self.all(t, t.contains('a'))")),
		"names": list(100, str(10, rule("self.contains('a') && self.contains('b')")), nil),
	}), "costthings")
	must(e, req(http.MethodPost).Body(customResource("CostThingcostthings", "ok", map[string]any{"tags": []any{"a"}, "names": []any{"ab"}})).Do(e.ctx).Error())
	causes := celCauses(e, "bounded rules run", req(http.MethodPost).Body(customResource("CostThingcostthings", "bad", map[string]any{"tags": []any{"b"}})))
	wantCause(e, "bounded rules run", causes, "spec.tags: Invalid value: failed rule: self.all(t, t.contains('a'))")
}

// factor is kube-apiserver's wording of how far cost exceeds limit.
func factor(e *env, cost, limit uint64) string {
	e.Helper()
	f := float64(cost) / float64(limit)
	switch {
	case f > 100:
		return "more than 100x"
	case f < 1.5:
		return fmt.Sprintf("%fx", f)
	}
	return fmt.Sprintf("%.1fx", f)
}

func celCompileErrors(e *env) {
	at := "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations"
	spec := func(rs ...map[string]any) map[string]any {
		return map[string]any{"type": "object", "x-kubernetes-validations": rules(rs...), "properties": map[string]any{
			"size": map[string]any{"type": "integer"},
		}}
	}
	crd := func(sp map[string]any) map[string]any {
		c := costCRD("compilethings", nil)
		v := c["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
		v["schema"] = map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{"spec": sp}}}
		return c
	}
	tests := []struct {
		name  string
		rules []map[string]any
		want  []string
	}{
		{"unknown field", []map[string]any{{"rule": "self.nope == 1"}}, []string{
			at + `[0].rule: Invalid value: {"Rule":"self.nope == 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: undefined field 'nope'
 | self.nope == 1
 | ....^`,
		}},
		{"not a boolean", []map[string]any{{"rule": "self.size + 1"}}, []string{
			at + `[0].rule: Invalid value: {"Rule":"self.size + 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: cel expression must evaluate to a bool`,
		}},
		{"messageExpression not a string", []map[string]any{{"rule": "self.size > 1", "messageExpression": "self.size", "reason": "FieldValueForbidden"}}, []string{
			at + `[0].messageExpression: Invalid value: {"Rule":"self.size \u003e 1","Message":"","MessageExpression":"self.size","Reason":"FieldValueForbidden","FieldPath":"","OptionalOldSelf":null}: messageExpression must evaluate to a string`,
		}},
		{"second rule of two", []map[string]any{{"rule": "self.size > 1"}, {"rule": "self.size >"}}, []string{
			at + `[1].rule: Invalid value: {"Rule":"self.size \u003e","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:12: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | self.size >
 | ...........^`,
		}},
	}
	for _, tt := range tests {
		got := crdCauses(e, crd(spec(tt.rules...)))
		wantCauses(e, tt.name, got, tt.want)
	}
	// An update that adds a rule that does not compile is refused too.
	good := crd(spec(map[string]any{"rule": "self.size > 1"}))
	e.serveCRD(good, "compilethings")
	var cur map[string]any
	raw, err := e.c.Get().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Name("compilethings." + widgetGroup).Do(e.ctx).Raw()
	must(e, err)
	must(e, json.Unmarshal(raw, &cur))
	sp := cur["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)
	sp["x-kubernetes-validations"] = rules(map[string]any{"rule": "self.nope == 1"})
	body, _ := json.Marshal(cur)
	err = e.c.Put().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Name("compilethings." + widgetGroup).Body(body).Do(e.ctx).Error()
	if se, ok := err.(*apierrors.StatusError); !ok || se.ErrStatus.Code != http.StatusUnprocessableEntity || se.ErrStatus.Details == nil || len(se.ErrStatus.Details.Causes) != 1 ||
		se.ErrStatus.Details.Causes[0].Field != at+"[0].rule" {
		e.Errorf("update adding a rule that does not compile: got %v, want 422 at %s[0].rule", err, at)
	}
}
