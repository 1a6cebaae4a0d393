package fake_test

import (
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/rest"
)

// celCases run CEL validation rules (x-kubernetes-validations) of a
// custom resource on both servers.
func celCases() []conformanceCase {
	return []conformanceCase{
		{"CELRulesRefuseWritesAsKubeAPIServerWordsThem", celRulesRefuse},
		{"CELTransitionRulesRunOnUpdateOnly", celTransitionRules},
	}
}

func rules(rs ...map[string]any) []any {
	out := make([]any, len(rs))
	for i, r := range rs {
		out[i] = r
	}
	return out
}

// celThings serves the CelThing CRD: CEL rules at the root, on spec, on
// fields, on map list items and map values, with messageExpression,
// reason, fieldPath and transition rules.
func (e *env) celThings() func(verb string) *rest.Request {
	e.Helper()
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "celthings." + widgetGroup},
		"spec": map[string]any{
			"group": widgetGroup, "scope": "Namespaced",
			"names": map[string]any{"plural": "celthings", "singular": "celthing", "kind": "CelThing", "listKind": "CelThingList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"x-kubernetes-validations": rules(
						map[string]any{"rule": "self.metadata.name.startsWith('c')", "message": "the name starts with c"},
					),
					"properties": map[string]any{
						"spec": map[string]any{
							"type": "object",
							"x-kubernetes-validations": rules(
								map[string]any{"rule": "!has(self.name) || self.name != 'admin'", "messageExpression": "'name ' + self.name + ' is reserved'", "reason": "FieldValueForbidden", "fieldPath": ".name"},
								map[string]any{"rule": "!has(self.items) || self.items.map(i, i.weight).sum() <= 20", "message": "weights add up to 20 at most"},
							),
							"properties": map[string]any{
								"name": map[string]any{"type": "string", "maxLength": int64(10)},
								"size": map[string]any{"type": "integer", "x-kubernetes-validations": rules(
									map[string]any{"rule": "self >= oldSelf", "message": "size may only grow"},
								)},
								"mode": map[string]any{"type": "string", "maxLength": int64(10), "x-kubernetes-validations": rules(
									map[string]any{"rule": "self == oldSelf", "message": "mode is immutable"},
								)},
								"tags": map[string]any{"type": "array", "maxItems": int64(10), "items": map[string]any{"type": "string", "maxLength": int64(10)}, "x-kubernetes-validations": rules(
									map[string]any{"rule": "self.isSorted()", "message": "tags are sorted"},
									map[string]any{"rule": "self.all(t, t.find('[0-9]+') == '')", "message": "tags have no digits"},
								)},
								"items": map[string]any{
									"type": "array", "maxItems": int64(10), "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"},
									"items": map[string]any{
										"type": "object", "required": []any{"name"},
										"properties": map[string]any{
											"name":   map[string]any{"type": "string", "maxLength": int64(10)},
											"weight": map[string]any{"type": "integer"},
										},
										"x-kubernetes-validations": rules(map[string]any{"rule": "!has(self.weight) || self.weight <= 10", "message": "an item weighs 10 at most"}),
									},
								},
								"labels": map[string]any{"type": "object", "maxProperties": int64(10), "additionalProperties": map[string]any{
									"type": "string", "maxLength": int64(10), "x-kubernetes-validations": rules(map[string]any{"rule": "self.size() <= 3", "message": "a label value has 3 characters at most"}),
								}},
							},
						},
					},
				}},
			}},
		},
	}
	req := e.serveCRD(crd, "celthings")
	return req
}

// celCauses writes body and returns the causes of the 422 as
// "field: message", or fails the test on another answer.
func celCauses(e *env, name string, r *rest.Request) []string {
	e.Helper()
	err := r.Do(e.ctx).Error()
	se, ok := err.(*apierrors.StatusError)
	if !ok || se.ErrStatus.Code != http.StatusUnprocessableEntity {
		e.Errorf("%s: got %v, want 422 Invalid", name, err)
		return nil
	}
	var out []string
	if se.ErrStatus.Details != nil {
		for _, c := range se.ErrStatus.Details.Causes {
			out = append(out, c.Field+": "+c.Message)
		}
	}
	return out
}

func wantCause(e *env, name string, causes []string, want string) {
	e.Helper()
	for _, c := range causes {
		if strings.Contains(c, want) {
			return
		}
	}
	e.Errorf("%s: causes %q, want one with %q", name, causes, want)
}

func celRulesRefuse(e *env) {
	req := e.celThings()
	good := map[string]any{"name": "bob", "tags": []any{"a", "b"}, "items": []any{map[string]any{"name": "x", "weight": int64(5)}}, "labels": map[string]any{"a": "abc"}}
	must(e, req(http.MethodPost).Body(customResource("CelThing", "c-good", good)).Do(e.ctx).Error())
	with := func(k string, v any) map[string]any {
		out := map[string]any{}
		for kk, vv := range good {
			out[kk] = vv
		}
		out[k] = v
		return out
	}
	tests := []struct {
		name, object string
		spec         map[string]any
		want         string
	}{
		{"messageExpression, reason and fieldPath", "c-admin", with("name", "admin"), "spec.name: Forbidden: name admin is reserved"},
		{"list function", "c-unsorted", with("tags", []any{"b", "a"}), "spec.tags: Invalid value: tags are sorted"},
		{"regex function", "c-digits", with("tags", []any{"a1"}), "spec.tags: Invalid value: tags have no digits"},
		{"map list item", "c-heavy", with("items", []any{map[string]any{"name": "x", "weight": int64(11)}}), "spec.items[0]: Invalid value: an item weighs 10 at most"},
		{"sum over items", "c-sum", with("items", []any{map[string]any{"name": "x", "weight": int64(10)}, map[string]any{"name": "y", "weight": int64(10)}, map[string]any{"name": "z", "weight": int64(1)}}), "spec: Invalid value: weights add up to 20 at most"},
		{"map value", "c-label", with("labels", map[string]any{"a": "abcd"}), `spec.labels[a]: Invalid value: "abcd": a label value has 3 characters at most`},
		{"root rule", "x-root", good, "<nil>: Invalid value: the name starts with c"},
	}
	for _, tt := range tests {
		causes := celCauses(e, tt.name, req(http.MethodPost).Body(customResource("CelThing", tt.object, tt.spec)))
		wantCause(e, tt.name, causes, tt.want)
		e.Logf("%s: %q", tt.name, causes)
	}
}

func celTransitionRules(e *env) {
	req := e.celThings()
	spec := map[string]any{"size": int64(3), "mode": "fast"}
	// On create, transition rules do not run.
	must(e, req(http.MethodPost).Body(customResource("CelThing", "c-t", spec)).Do(e.ctx).Error())
	get := func() *unstructured.Unstructured {
		var u unstructured.Unstructured
		raw, err := req(http.MethodGet).Name("c-t").Do(e.ctx).Raw()
		must(e, err)
		must(e, u.UnmarshalJSON(raw))
		return &u
	}
	update := func(k string, v any) *rest.Request {
		u := get()
		must(e, unstructured.SetNestedField(u.Object, v, "spec", k))
		body, err := u.MarshalJSON()
		must(e, err)
		return req(http.MethodPut).Name("c-t").Body(body)
	}
	wantCause(e, "shrink", celCauses(e, "shrink", update("size", int64(2))), "spec.size: Invalid value: 2: size may only grow")
	wantCause(e, "mode change", celCauses(e, "mode change", update("mode", "slow")), `spec.mode: Invalid value: "slow": mode is immutable`)
	must(e, update("size", int64(4)).Do(e.ctx).Error())
	// A field absent from the old object has no oldSelf: the rule does not run.
	u := get()
	unstructured.RemoveNestedField(u.Object, "spec", "mode")
	body, err := u.MarshalJSON()
	must(e, err)
	must(e, req(http.MethodPut).Name("c-t").Body(body).Do(e.ctx).Error())
	must(e, update("mode", "any").Do(e.ctx).Error())
}
