package fake_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/webhook/admission"
	"github.com/kubego/kubego/webhook/conversion"
)

// reviews records the AdmissionRequests a test webhook was sent.
type reviews struct {
	mu  sync.Mutex
	got []admissionv1.AdmissionRequest
}

// handler records each request and answers with answer's response.
func (r *reviews) handler(answer func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse) http.Handler {
	return admission.New(admission.HandlerFunc(func(_ context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		r.mu.Lock()
		r.got = append(r.got, *req.DeepCopy())
		r.mu.Unlock()
		return answer(req)
	}), admission.Options{})
}

func (r *reviews) all() []admissionv1.AdmissionRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// jsonPatch admits with the RFC 6902 patch ops.
func jsonPatch(ops ...map[string]any) *admissionv1.AdmissionResponse {
	p, err := json.Marshal(ops)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	resp := admission.Allowed()
	pt := admissionv1.PatchTypeJSONPatch
	resp.Patch, resp.PatchType = p, &pt
	return resp
}

func specOf(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var u map[string]any
	if err := json.Unmarshal(raw, &u); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	spec, _ := u["spec"].(map[string]any)
	return spec
}

// gadgetsServedInTwoVersions serves gadgets of group in v1 (spec.color) and v2
// (spec.colour), with a scale subresource, converted by the in-process
// webhook at convertURL.
func gadgetsServedInTwoVersions(f *hookFixture, group, convertURL string) {
	f.t.Helper()
	sch := map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
		"spec":   map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
		"status": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}
	scale := map[string]any{"scale": map[string]any{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gadgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "gadgets", "kind": "Gadget"},
			"versions": []any{
				map[string]any{"name": "v1", "served": true, "storage": true, "schema": sch, "subresources": scale},
				map[string]any{"name": "v2", "served": true, "storage": false, "schema": sch, "subresources": scale},
			},
			"conversion": map[string]any{"strategy": "Webhook", "webhook": map[string]any{
				"conversionReviewVersions": []any{"v1"},
				"clientConfig":             map[string]any{"url": convertURL},
			}},
		},
	}
	if err := f.c.Post().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Body(crd).Do(f.t.Context()).Error(); err != nil {
		f.t.Fatal(err)
	}
}

// gadgetConverter is the conversion webhook of gadgetsServedInTwoVersions.
func gadgetConverter(group string) http.Handler {
	rename := func(from, to string) conversion.Func {
		return func(_ context.Context, obj []byte, desired string) ([]byte, error) {
			var u map[string]any
			if err := json.Unmarshal(obj, &u); err != nil {
				return nil, err
			}
			u["apiVersion"] = desired
			if spec, ok := u["spec"].(map[string]any); ok {
				if v, ok := spec[from]; ok {
					delete(spec, from)
					spec[to] = v
				}
			}
			return json.Marshal(u)
		}
	}
	wh := conversion.New(conversion.Options{})
	wh.RegisterFunc(group+"/v1", group+"/v2", rename("color", "colour"))
	wh.RegisterFunc(group+"/v2", group+"/v1", rename("colour", "color"))
	return wh
}

func TestMatchPolicyDecidesWhetherAnotherVersionIsSent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy admissionregistrationv1.MatchPolicyType
		called bool
	}{
		{"EquivalentSendsAWriteOfV2ConvertedToV1", admissionregistrationv1.Equivalent, true},
		{"ExactSendsOnlyWritesOfV1", admissionregistrationv1.Exact, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const group = "equiv.fake.test"
				var mut, val reviews
				f := newHookFixture(t, map[string]http.Handler{
					"https://hooks.test/convert": gadgetConverter(group),
					"https://hooks.test/mutate": mut.handler(func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
						return jsonPatch(map[string]any{"op": "add", "path": "/spec/size", "value": "big"})
					}),
					"https://hooks.test/validate": val.handler(func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse { return admission.Allowed() }),
				})
				gadgetsServedInTwoVersions(f, group, "https://hooks.test/convert")
				rules := []admissionregistrationv1.RuleWithOperations{{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"v1"}, Resources: []string{"gadgets"}},
				}}
				f.register(&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "m"},
					Webhooks: []admissionregistrationv1.MutatingWebhook{mutatingHook("mutate.hooks.test", "https://hooks.test/mutate", func(h *admissionregistrationv1.MutatingWebhook) {
						h.Rules, h.MatchPolicy = rules, &tc.policy
					})}}, "mutatingwebhookconfigurations")
				f.register(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v"},
					Webhooks: []admissionregistrationv1.ValidatingWebhook{validatingHook("validate.hooks.test", "https://hooks.test/validate", func(h *admissionregistrationv1.ValidatingWebhook) {
						h.Rules, h.MatchPolicy = rules, &tc.policy
					})}}, "validatingwebhookconfigurations")

				at := func(verb, v string) *rest.Request {
					return f.c.Verb(verb).Group(group).Version(v).Namespace("default").Resource("gadgets")
				}
				obj := map[string]any{"apiVersion": group + "/v2", "kind": "Gadget", "metadata": map[string]any{"name": "g"}, "spec": map[string]any{"colour": "red"}}
				var out unstructured.Unstructured
				if err := at(http.MethodPost, "v2").Body(obj).Do(t.Context()).Into(&out); err != nil {
					t.Fatal(err)
				}
				spec, _, _ := unstructured.NestedStringMap(out.Object, "spec")
				m, v := mut.all(), val.all()
				if !tc.called {
					if len(m) != 0 || len(v) != 0 || len(spec) != 1 {
						t.Fatalf("webhooks of v1 with matchPolicy Exact called %d and %d times for a write of v2, stored spec %v", len(m), len(v), spec)
					}
					return
				}
				if out.GetAPIVersion() != group+"/v2" || spec["colour"] != "red" || spec["size"] != "big" || len(spec) != 2 {
					t.Fatalf("stored %s spec %v, want v2 with the v1 webhook's patch converted back", out.GetAPIVersion(), spec)
				}
				if len(m) != 1 || len(v) != 1 {
					t.Fatalf("mutating called %d times, validating %d, want once each", len(m), len(v))
				}
				for _, r := range []admissionv1.AdmissionRequest{m[0], v[0]} {
					if r.Kind != (metav1.GroupVersionKind{Group: group, Version: "v1", Kind: "Gadget"}) ||
						r.Resource != (metav1.GroupVersionResource{Group: group, Version: "v1", Resource: "gadgets"}) ||
						*r.RequestKind != (metav1.GroupVersionKind{Group: group, Version: "v2", Kind: "Gadget"}) ||
						*r.RequestResource != (metav1.GroupVersionResource{Group: group, Version: "v2", Resource: "gadgets"}) {
						t.Fatalf("sent kind %v resource %v requestKind %v requestResource %v, want v1 and the request's v2", r.Kind, r.Resource, r.RequestKind, r.RequestResource)
					}
				}
				if s := specOf(t, m[0].Object.Raw); s["color"] != "red" || len(s) != 1 {
					t.Fatalf("the mutating webhook saw spec %v, want the object converted to v1", s)
				}
				if s := specOf(t, v[0].Object.Raw); s["color"] != "red" || s["size"] != "big" {
					t.Fatalf("the validating webhook saw spec %v, want the mutated object in v1", s)
				}
			})
		})
	}
}

func TestScaleOfACustomResourceIsSentToTheWebhooksOfItsOtherVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const group = "equiv.fake.test"
		var seen reviews
		f := newHookFixture(t, map[string]http.Handler{
			"https://hooks.test/convert": gadgetConverter(group),
			"https://hooks.test/double": seen.handler(func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
				var sc autoscalingv1.Scale
				if err := json.Unmarshal(r.Object.Raw, &sc); err != nil {
					return admission.Errored(http.StatusBadRequest, err)
				}
				return jsonPatch(map[string]any{"op": "replace", "path": "/spec/replicas", "value": 2 * sc.Spec.Replicas})
			}),
		})
		gadgetsServedInTwoVersions(f, group, "https://hooks.test/convert")
		f.register(&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "m"},
			Webhooks: []admissionregistrationv1.MutatingWebhook{mutatingHook("double.hooks.test", "https://hooks.test/double", func(h *admissionregistrationv1.MutatingWebhook) {
				h.Rules = []admissionregistrationv1.RuleWithOperations{{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"v1"}, Resources: []string{"gadgets/scale"}},
				}}
			})}}, "mutatingwebhookconfigurations")
		at := func(verb, v string) *rest.Request {
			return f.c.Verb(verb).Group(group).Version(v).Namespace("default").Resource("gadgets")
		}
		obj := map[string]any{"apiVersion": group + "/v2", "kind": "Gadget", "metadata": map[string]any{"name": "g"}, "spec": map[string]any{"colour": "red", "replicas": int64(1)}}
		if err := at(http.MethodPost, "v2").Body(obj).Do(t.Context()).Error(); err != nil {
			t.Fatal(err)
		}
		var sc autoscalingv1.Scale
		in := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "g", Namespace: "default"}, Spec: autoscalingv1.ScaleSpec{Replicas: 3}}
		if err := at(http.MethodPut, "v2").Name("g").SubResource("scale").Body(in).Do(t.Context()).Into(&sc); err != nil {
			t.Fatal(err)
		}
		if sc.Spec.Replicas != 6 {
			t.Fatalf("scaled to %d, want the v1 webhook's 6", sc.Spec.Replicas)
		}
		got := seen.all()
		if len(got) != 1 {
			t.Fatalf("the webhook was called %d times, want once", len(got))
		}
		r := got[0]
		scaleKind := metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
		if r.Kind != scaleKind || *r.RequestKind != scaleKind || r.SubResource != "scale" ||
			r.Resource != (metav1.GroupVersionResource{Group: group, Version: "v1", Resource: "gadgets"}) ||
			*r.RequestResource != (metav1.GroupVersionResource{Group: group, Version: "v2", Resource: "gadgets"}) {
			t.Fatalf("sent kind %v resource %v requestResource %v subresource %q", r.Kind, r.Resource, r.RequestResource, r.SubResource)
		}
	})
}

func newAppsDeployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1"}}},
			},
		},
	}
}

func TestScaleSubresourceIsAdmittedAsAScale(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var capHook, refuseHook, mainHook reviews
		capAt5 := func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			var sc autoscalingv1.Scale
			if err := json.Unmarshal(r.Object.Raw, &sc); err != nil {
				return admission.Errored(http.StatusBadRequest, err)
			}
			if sc.Spec.Replicas > 5 {
				return jsonPatch(map[string]any{"op": "replace", "path": "/spec/replicas", "value": 5})
			}
			return admission.Allowed()
		}
		refuse3 := func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			var sc autoscalingv1.Scale
			if err := json.Unmarshal(r.Object.Raw, &sc); err != nil {
				return admission.Errored(http.StatusBadRequest, err)
			}
			if sc.Spec.Replicas == 3 {
				return admission.Denied("three is not allowed")
			}
			return admission.Allowed()
		}
		f := newHookFixture(t, map[string]http.Handler{
			"https://hooks.test/cap":    capHook.handler(capAt5),
			"https://hooks.test/refuse": refuseHook.handler(refuse3),
			"https://hooks.test/main":   mainHook.handler(func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse { return admission.Allowed() }),
		})
		rule := func(resources ...string) []admissionregistrationv1.RuleWithOperations {
			return []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: resources},
			}}
		}
		f.register(&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "m"},
			Webhooks: []admissionregistrationv1.MutatingWebhook{mutatingHook("cap.hooks.test", "https://hooks.test/cap", func(h *admissionregistrationv1.MutatingWebhook) {
				h.Rules = rule("deployments/scale")
			})}}, "mutatingwebhookconfigurations")
		f.register(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{
				validatingHook("refuse.hooks.test", "https://hooks.test/refuse", func(h *admissionregistrationv1.ValidatingWebhook) { h.Rules = rule("*/scale") }),
				validatingHook("main.hooks.test", "https://hooks.test/main", func(h *admissionregistrationv1.ValidatingWebhook) { h.Rules = rule("deployments") }),
			}}, "validatingwebhookconfigurations")
		ctx := t.Context()
		dep := func(verb string, sub ...string) *rest.Request {
			return f.c.Verb(verb).Group("apps").Version("v1").Namespace("default").Resource("deployments").Name("web").SubResource(sub...)
		}
		if err := f.c.Post().Group("apps").Version("v1").Namespace("default").Resource("deployments").Body(newAppsDeployment("web", 1)).Do(ctx).Error(); err != nil {
			t.Fatal(err)
		}
		if n := len(mainHook.all()); n != 1 {
			t.Fatalf("the webhook of deployments was called %d times for the create, want once", n)
		}

		var sc autoscalingv1.Scale
		in := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: autoscalingv1.ScaleSpec{Replicas: 7}}
		if err := dep(http.MethodPut, "scale").Body(in).Do(ctx).Into(&sc); err != nil {
			t.Fatal(err)
		}
		var d appsv1.Deployment
		if err := dep(http.MethodGet).Do(ctx).Into(&d); err != nil {
			t.Fatal(err)
		}
		if sc.Spec.Replicas != 5 || *d.Spec.Replicas != 5 {
			t.Fatalf("scaled to %d, deployment at %d, want the mutating webhook's cap of 5", sc.Spec.Replicas, *d.Spec.Replicas)
		}
		if n := len(mainHook.all()); n != 1 {
			t.Fatalf("the webhook of deployments (no subresource) was called for a write of the scale")
		}
		m, v := capHook.all(), refuseHook.all()
		if len(m) != 1 || len(v) != 1 {
			t.Fatalf("scale webhooks called %d and %d times, want once each", len(m), len(v))
		}
		scaleKind := metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
		deployments := metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
		for _, r := range []admissionv1.AdmissionRequest{m[0], v[0]} {
			var newSc, oldSc autoscalingv1.Scale
			if err := json.Unmarshal(r.Object.Raw, &newSc); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(r.OldObject.Raw, &oldSc); err != nil {
				t.Fatal(err)
			}
			if r.Operation != admissionv1.Update || r.SubResource != "scale" || r.Kind != scaleKind || r.Resource != deployments ||
				*r.RequestKind != scaleKind || r.RequestSubResource != "scale" || r.Name != "web" || r.Namespace != "default" ||
				newSc.Kind != "Scale" || oldSc.Spec.Replicas != 1 {
				t.Fatalf("sent %s %s/%s kind %v resource %v, Scale %+v old %+v", r.Operation, r.Resource, r.SubResource, r.Kind, r.Resource, newSc, oldSc)
			}
		}
		if got := specOf(t, v[0].Object.Raw)["replicas"]; got != float64(5) {
			t.Fatalf("the validating webhook saw replicas %v, want the mutated 5", got)
		}

		err := dep(http.MethodPatch, "scale").SetHeader("Content-Type", string(types.MergePatchType)).Body([]byte(`{"spec":{"replicas":3}}`)).Do(ctx).Error()
		var se *apierrors.StatusError
		if !errors.As(err, &se) || se.ErrStatus.Code != http.StatusForbidden || se.ErrStatus.Message != `admission webhook "refuse.hooks.test" denied the request: three is not allowed` {
			t.Fatalf("got %v, want the scale webhook's denial", err)
		}
		if err := dep(http.MethodGet).Do(ctx).Into(&d); err != nil || *d.Spec.Replicas != 5 {
			t.Fatalf("after the refused patch: %v, replicas %d, want 5", err, *d.Spec.Replicas)
		}
	})
}

func TestDeleteCollectionAdmitsEachObjectAndStopsAtARefusal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var seen reviews
		f := newHookFixture(t, map[string]http.Handler{
			"https://hooks.test/delete": seen.handler(func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
				var cm corev1.ConfigMap
				if err := json.Unmarshal(r.OldObject.Raw, &cm); err != nil {
					return admission.Errored(http.StatusBadRequest, err)
				}
				if cm.Labels["keep"] == "yes" {
					return admission.Denied(cm.Name + " is kept")
				}
				return admission.Allowed()
			}),
		})
		f.register(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{validatingHook("delete.hooks.test", "https://hooks.test/delete", func(h *admissionregistrationv1.ValidatingWebhook) {
				h.Rules = cmRules(admissionregistrationv1.Delete)
			})}}, "validatingwebhookconfigurations")
		for _, name := range []string{"a", "b", "c", "d"} {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"set": "x"}}}
			if name == "c" {
				cm.Labels["keep"] = "yes"
			}
			if _, err := f.createConfigMap(cm); err != nil {
				t.Fatal(err)
			}
		}
		err := f.c.Delete().Namespace("default").Resource("configmaps").Param("labelSelector", "set=x").Do(t.Context()).Error()
		var se *apierrors.StatusError
		if !errors.As(err, &se) || se.ErrStatus.Code != http.StatusForbidden || se.ErrStatus.Message != `admission webhook "delete.hooks.test" denied the request: c is kept` {
			t.Fatalf("got %v, want the webhook's denial of c", err)
		}
		var left corev1.ConfigMapList
		if err := f.c.Get().Namespace("default").Resource("configmaps").Param("labelSelector", "set=x").Do(t.Context()).Into(&left); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, cm := range left.Items {
			names = append(names, cm.Name)
		}
		if strings.Join(names, ",") != "c,d" {
			t.Fatalf("left %v, want c (refused) and d (after the refusal)", names)
		}
		got := seen.all()
		if len(got) != 3 {
			t.Fatalf("the webhook was sent %d deletions, want a, b and c", len(got))
		}
		for _, r := range got {
			if r.Operation != admissionv1.Delete || r.Name != "" || r.Namespace != "default" || len(r.Object.Raw) != 0 || len(r.OldObject.Raw) == 0 {
				t.Fatalf("sent %s name %q namespace %q object %d bytes old %d bytes, want a DELETE with no name, the request's namespace and the old object",
					r.Operation, r.Name, r.Namespace, len(r.Object.Raw), len(r.OldObject.Raw))
			}
		}
	})
}

func TestValidatingWebhooksAreCalledAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		secondCalled := make(chan struct{})
		var first, second reviews
		f := newHookFixture(t, map[string]http.Handler{
			// The first waits for the second to be called: one after the
			// other, the first would time out.
			"https://hooks.test/first": first.handler(func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
				<-secondCalled
				return admission.Denied("first says no")
			}),
			"https://hooks.test/second": second.handler(func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
				close(secondCalled)
				return admission.Allowed()
			}),
		})
		f.register(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{
				validatingHook("first.hooks.test", "https://hooks.test/first", nil),
				validatingHook("second.hooks.test", "https://hooks.test/second", nil),
			}}, "validatingwebhookconfigurations")
		_, err := f.createConfigMap(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}})
		var se *apierrors.StatusError
		if !errors.As(err, &se) || se.ErrStatus.Code != http.StatusForbidden || se.ErrStatus.Message != `admission webhook "first.hooks.test" denied the request: first says no` {
			t.Fatalf("got %v, want the first webhook's denial", err)
		}
		if len(first.all()) != 1 || len(second.all()) != 1 {
			t.Fatalf("called %d and %d times, want both once", len(first.all()), len(second.all()))
		}
	})
}

func TestSeveralRefusingValidatingWebhooksAnswerWithOneDenial(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls reviews
		no := func(msg string) http.Handler {
			return calls.handler(func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse { return admission.Denied(msg) })
		}
		f := newHookFixture(t, map[string]http.Handler{"https://hooks.test/a": no("a says no"), "https://hooks.test/b": no("b says no")})
		f.register(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{
				validatingHook("a.hooks.test", "https://hooks.test/a", nil),
				validatingHook("b.hooks.test", "https://hooks.test/b", nil),
			}}, "validatingwebhookconfigurations")
		_, err := f.createConfigMap(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}})
		var se *apierrors.StatusError
		if !errors.As(err, &se) || se.ErrStatus.Code != http.StatusForbidden {
			t.Fatalf("got %v, want 403", err)
		}
		if msg := se.ErrStatus.Message; msg != `admission webhook "a.hooks.test" denied the request: a says no` && msg != `admission webhook "b.hooks.test" denied the request: b says no` {
			t.Fatalf("message %q, want one webhook's denial as it is", msg)
		}
		if n := len(calls.all()); n != 2 {
			t.Fatalf("%d calls, want both webhooks called", n)
		}
	})
}

func TestGarbageCollectorDeletionsAreNotAdmitted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var seen reviews
		f := newHookFixture(t, map[string]http.Handler{
			"https://hooks.test/refuse": seen.handler(func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
				return admission.Denied("no deletes")
			}),
		})
		f.register(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{validatingHook("refuse.hooks.test", "https://hooks.test/refuse", func(h *admissionregistrationv1.ValidatingWebhook) {
				h.Rules = []admissionregistrationv1.RuleWithOperations{{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
				}}
			})}}, "validatingwebhookconfigurations")
		// The owner is a Secret, which the webhook leaves alone.
		var sec corev1.Secret
		if err := f.c.Post().Namespace("default").Resource("secrets").Body(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}).Do(t.Context()).Into(&sec); err != nil {
			t.Fatal(err)
		}
		dep := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dependent", OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Secret", Name: "owner", UID: sec.UID}}}}
		if _, err := f.createConfigMap(dep); err != nil {
			t.Fatal(err)
		}
		if err := f.c.Delete().Namespace("default").Resource("secrets").Name("owner").Do(t.Context()).Error(); err != nil {
			t.Fatal(err)
		}
		if err := f.c.Get().Namespace("default").Resource("configmaps").Name("dependent").Do(t.Context()).Error(); !apierrors.IsNotFound(err) {
			t.Fatalf("dependent: %v, want it collected", err)
		}
		if n := len(seen.all()); n != 0 {
			t.Fatalf("the webhook was sent %d deletions of the garbage collector, want none (documented)", n)
		}
	})
}
