package fake_test

import (
	"context"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/webhook/admission"
)

// celCases run CEL validation rules (x-kubernetes-validations) of a
// custom resource on both servers.
func celCases() []conformanceCase {
	return []conformanceCase{
		{"CELRulesRefuseWritesAsKubeAPIServerWordsThem", celRulesRefuse},
		{"CELTransitionRulesRunOnUpdateOnly", celTransitionRules},
		{"CELFormatAndSemverLibrariesRefuseAsKubeAPIServer", celFormatAndSemverRules},
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
								"memory": map[string]any{"type": "string", "maxLength": int64(20), "x-kubernetes-validations": rules(
									map[string]any{"rule": "isQuantity(self) && quantity(self).isLessThan(quantity('1Gi'))", "message": "memory is under 1Gi"},
								)},
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
	good := map[string]any{"name": "bob", "memory": "512Mi", "tags": []any{"a", "b"}, "items": []any{map[string]any{"name": "x", "weight": int64(5)}}, "labels": map[string]any{"a": "abc"}}
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
		{"quantity function", "c-mem", with("memory", "2Gi"), `spec.memory: Invalid value: "2Gi": memory is under 1Gi`},
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

// celWebhookCases are the matchConditions of admission webhooks, on both
// servers.
func celWebhookCases() []conformanceCase {
	return []conformanceCase{
		{"WebhookMatchConditionsChooseTheRequestsSent", webhookMatchConditions},
	}
}

// webhookMatchConditions registers a validating webhook that refuses every
// ConfigMap it is sent, with a matchCondition that sends it only those
// named checked-*, a second one (failurePolicy Ignore) whose condition
// fails to evaluate, and a third (Fail) whose condition fails for
// ConfigMaps named fail-*.
func webhookMatchConditions(e *env) {
	var mu sync.Mutex
	var called []string
	deny := admission.New(admission.Validating[corev1.ConfigMap](admission.ValidatorFuncs[*corev1.ConfigMap]{
		Create: func(_ context.Context, cm *corev1.ConfigMap) (admission.Warnings, error) {
			mu.Lock()
			called = append(called, cm.Name)
			mu.Unlock()
			return nil, errors.New("refused by the webhook")
		},
	}, admission.TypedOptions{}), admission.Options{})
	srv := httptest.NewUnstartedServer(deny)
	srv.StartTLS()
	e.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	name := "conformance-cel-" + e.ns
	nsSel := &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": e.ns}}
	rules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
	}}
	none := admissionregistrationv1.SideEffectClassNone
	fail, ignore := admissionregistrationv1.Fail, admissionregistrationv1.Ignore
	hook := func(n string, policy *admissionregistrationv1.FailurePolicyType, conds ...admissionregistrationv1.MatchCondition) admissionregistrationv1.ValidatingWebhook {
		return admissionregistrationv1.ValidatingWebhook{
			Name: n, ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &srv.URL, CABundle: ca},
			Rules: rules, NamespaceSelector: nsSel, SideEffects: &none, FailurePolicy: policy, AdmissionReviewVersions: []string{"v1"},
			MatchConditions: conds,
		}
	}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{
			hook("checked.conformance.kubego.test", &fail,
				admissionregistrationv1.MatchCondition{Name: "checked-only", Expression: "object.metadata.name.startsWith('checked-')"},
				admissionregistrationv1.MatchCondition{Name: "creates", Expression: "request.operation == 'CREATE' && oldObject == null"}),
			hook("ignored.conformance.kubego.test", &ignore,
				admissionregistrationv1.MatchCondition{Name: "fails", Expression: "object.metadata.annotations['missing'] == 'x'"}),
			hook("failing.conformance.kubego.test", &fail,
				admissionregistrationv1.MatchCondition{Name: "fails-for-fail", Expression: "object.metadata.name.startsWith('fail-') && object.metadata.annotations['missing'] == 'x'"}),
		}}
	vwcs := func(verb string) *rest.Request {
		return e.c.Verb(verb).Group("admissionregistration.k8s.io").Version("v1").Resource("validatingwebhookconfigurations")
	}
	// An expression that does not compile is refused with the configuration.
	bad := vwc.DeepCopy()
	bad.Webhooks[0].MatchConditions[0].Expression = "object.("
	err := vwcs(http.MethodPost).Body(bad).Do(e.ctx).Error()
	if se, ok := err.(*apierrors.StatusError); !ok || se.ErrStatus.Code != http.StatusUnprocessableEntity {
		e.Fatalf("configuration with a condition that does not compile: got %v, want 422", err)
	} else if se.ErrStatus.Details == nil || len(se.ErrStatus.Details.Causes) == 0 || se.ErrStatus.Details.Causes[0].Field != "webhooks[0].matchConditions[0].expression" {
		e.Errorf("configuration with a condition that does not compile: causes %+v", se.ErrStatus.Details)
	}
	must(e, vwcs(http.MethodPost).Body(vwc).Do(e.ctx).Error())
	e.Cleanup(func() { _ = vwcs(http.MethodDelete).Name(name).Do(context.Background()).Error() })

	create := func(ctx context.Context, n string) error {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n}}
		return e.c.Post().Namespace(e.ns).Resource("configmaps").Body(cm).Do(ctx).Error()
	}
	// kube-apiserver starts calling new webhooks after its configuration
	// informer sees them: wait for the effect.
	probe := 0
	kubegotest.Eventually(e.ctx, e.T, func(ctx context.Context) error {
		probe++
		if err := create(ctx, "checked-probe-"+strconv.Itoa(probe)); err == nil {
			return errors.New("webhook not called yet")
		}
		return nil
	})
	mu.Lock()
	called = nil
	mu.Unlock()

	err = create(e.ctx, "checked-a")
	if err == nil || !strings.Contains(err.Error(), "refused by the webhook") {
		e.Errorf("checked-a: got %v, want the webhook's refusal", err)
	}
	must(e, create(e.ctx, "other-a"))
	err = create(e.ctx, "fail-a")
	const failMessage = `configmaps "fail-a" is forbidden: expression 'object.metadata.name.startsWith('fail-') && object.metadata.annotations['missing'] == 'x'' resulted in error: no such key: annotations`
	if se, ok := err.(*apierrors.StatusError); !ok || se.ErrStatus.Code != http.StatusForbidden || se.ErrStatus.Message != failMessage {
		e.Errorf("fail-a: got %v, want 403 naming the evaluation error", err)
	} else {
		e.Logf("fail-a: %s", se.ErrStatus.Message)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"checked-a"}; !slices.Equal(called, want) {
		e.Errorf("webhook called for %q, want %q", called, want)
	}
}
