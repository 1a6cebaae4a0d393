package fake_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/webhook/admission"
)

// webhookParityCases are the parts of admission both servers do alike
// beyond plain writes: matchPolicy Equivalent, the scale subresource,
// collection deletes and validating webhooks called at once.
func webhookParityCases() []conformanceCase {
	return []conformanceCase{
		{"AdmissionWebhookOfOneVersionSeesWritesOfAnother", webhookOfOneVersionSeesAnother},
		{"AdmissionWebhooksSeeScaleWritesAsScales", webhooksSeeScaleWrites},
		{"DeleteCollectionIsAdmittedObjectByObject", deleteCollectionIsAdmittedObjectByObject},
		{"ValidatingWebhooksAreCalledAtOnce", validatingWebhooksAreCalledAtOnce},
		{"DeleteCollectionAnswersWithTheObjectsAsListed", deleteCollectionAnswersAsListed},
	}
}

// hookServer is a set of test webhooks served over TLS on loopback, each
// recording what it was sent.
type hookServer struct {
	e    *env
	srv  *httptest.Server
	ca   []byte
	mu   sync.Mutex
	seen map[string][]admissionv1.AdmissionRequest
}

// startHookServer serves the handlers (path to answer) on loopback.
func startHookServer(e *env, handlers map[string]func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse) *hookServer {
	e.Helper()
	h := &hookServer{e: e, seen: map[string][]admissionv1.AdmissionRequest{}}
	mux := http.NewServeMux()
	for path, answer := range handlers {
		mux.Handle(path, admission.New(admission.HandlerFunc(func(_ context.Context, r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			h.mu.Lock()
			h.seen[path] = append(h.seen[path], *r.DeepCopy())
			h.mu.Unlock()
			return answer(r)
		}), admission.Options{}))
	}
	h.srv = httptest.NewUnstartedServer(mux)
	h.srv.StartTLS()
	e.Cleanup(h.srv.Close)
	h.ca = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.srv.Certificate().Raw})
	return h
}

func (h *hookServer) requests(path string) []admissionv1.AdmissionRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.seen[path])
}

func (h *hookServer) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.seen)
}

// hook is one webhook of a configuration hookServer.register writes.
type hook struct {
	name, path string
	rules      []admissionregistrationv1.RuleWithOperations
	mutating   bool
}

// register writes one mutating and one validating configuration of the
// hooks, limited to e's namespace, and removes them at the end.
func (h *hookServer) register(hooks ...hook) {
	e := h.e
	e.Helper()
	name := "parity-" + e.ns
	nsSel := &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": e.ns}}
	none := admissionregistrationv1.SideEffectClassNone
	fail := admissionregistrationv1.Fail
	timeout := int32(15)
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, k := range hooks {
		url := h.srv.URL + k.path
		cc := admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: h.ca}
		if k.mutating {
			mwc.Webhooks = append(mwc.Webhooks, admissionregistrationv1.MutatingWebhook{Name: k.name, ClientConfig: cc, Rules: k.rules,
				NamespaceSelector: nsSel, SideEffects: &none, FailurePolicy: &fail, TimeoutSeconds: &timeout, AdmissionReviewVersions: []string{"v1"}})
			continue
		}
		vwc.Webhooks = append(vwc.Webhooks, admissionregistrationv1.ValidatingWebhook{Name: k.name, ClientConfig: cc, Rules: k.rules,
			NamespaceSelector: nsSel, SideEffects: &none, FailurePolicy: &fail, TimeoutSeconds: &timeout, AdmissionReviewVersions: []string{"v1"}})
	}
	for res, obj := range map[string]any{"mutatingwebhookconfigurations": mwc, "validatingwebhookconfigurations": vwc} {
		if err := e.c.Post().Group("admissionregistration.k8s.io").Version("v1").Resource(res).Body(obj).Do(e.ctx).Error(); err != nil {
			e.Fatalf("create %s: %v", res, err)
		}
		e.Cleanup(func() {
			_ = e.c.Delete().Group("admissionregistration.k8s.io").Version("v1").Resource(res).Name(name).Do(context.Background()).Error()
		})
	}
}

func rulesFor(group, version string, resources []string, ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{Operations: ops,
		Rule: admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: resources}}}
}

func patchOps(ops ...map[string]any) *admissionv1.AdmissionResponse {
	p, err := json.Marshal(ops)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	resp := admission.Allowed()
	pt := admissionv1.PatchTypeJSONPatch
	resp.Patch, resp.PatchType = p, &pt
	return resp
}

// withTime gives e's case two minutes from now: these cases wait for
// kube-apiserver to serve a definition and to call new webhooks.
func withTime(e *env) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	e.Cleanup(cancel)
	e.ctx = ctx
}

// untilAdmitted repeats try until it succeeds: kube-apiserver calls new
// webhooks once its configuration informer has seen them.
func untilAdmitted(e *env, try func(ctx context.Context, n int) error) {
	e.Helper()
	n := 0
	kubegotest.Eventually(e.ctx, e.T, func(ctx context.Context) error {
		n++
		return try(ctx, n)
	})
}

// webhookOfOneVersionSeesAnother: a custom resource served in v1 and v2
// (spec.color and spec.colour, converted by a webhook); admission
// webhooks whose rules name v1 only (matchPolicy Equivalent, the default)
// get a write made through v2, converted to v1, and the mutating one's
// patch lands in the object written through v2.
func webhookOfOneVersionSeesAnother(e *env) {
	withTime(e)
	group := e.ns + ".kubego.dev"
	conv := startGadgetConverter(e, group)
	createGadgetCRD(e, group, conv)
	at := func(verb, version string) *rest.Request {
		return e.c.Verb(verb).Group(group).Version(version).Namespace(e.ns).Resource("gadgets")
	}
	for _, v := range []string{"v1", "v2"} {
		kubegotest.Eventually(e.ctx, e.T, func(ctx context.Context) error { return at(http.MethodGet, v).Do(ctx).Error() })
	}
	h := startHookServer(e, map[string]func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse{
		"/mutate": func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			return patchOps(map[string]any{"op": "add", "path": "/spec/size", "value": "big"})
		},
		"/validate": func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse { return admission.Allowed() },
	})
	rules := rulesFor(group, "v1", []string{"gadgets"}, admissionregistrationv1.Create)
	h.register(hook{name: "mutate.parity.kubego.test", path: "/mutate", rules: rules, mutating: true},
		hook{name: "validate.parity.kubego.test", path: "/validate", rules: rules})
	gadget := func(version, name string, spec map[string]any) map[string]any {
		return map[string]any{"apiVersion": group + "/" + version, "kind": "Gadget", "metadata": map[string]any{"name": name}, "spec": spec}
	}
	// The two configurations are seen by kube-apiserver each in its own
	// time: wait for both.
	untilAdmitted(e, func(ctx context.Context, n int) error {
		h.reset()
		var out unstructured.Unstructured
		if err := at(http.MethodPost, "v2").Body(gadget("v2", fmt.Sprintf("probe-%d", n), map[string]any{"colour": "blue"})).Do(ctx).Into(&out); err != nil {
			return err
		}
		if size, _, _ := unstructured.NestedString(out.Object, "spec", "size"); size != "big" || len(h.requests("/validate")) == 0 {
			return errors.New("not mutated and validated yet")
		}
		return nil
	})
	h.reset()

	var out unstructured.Unstructured
	if err := at(http.MethodPost, "v2").Body(gadget("v2", "g", map[string]any{"colour": "red"})).Do(e.ctx).Into(&out); err != nil {
		e.Fatalf("create through v2: %v", err)
	}
	spec, _, _ := unstructured.NestedStringMap(out.Object, "spec")
	if out.GetAPIVersion() != group+"/v2" || len(spec) != 2 || spec["colour"] != "red" || spec["size"] != "big" {
		e.Fatalf("stored %s spec %v, want v2 with the v1 webhook's field", out.GetAPIVersion(), spec)
	}
	m, v := h.requests("/mutate"), h.requests("/validate")
	if len(m) != 1 || len(v) != 1 {
		e.Fatalf("mutating webhook called %d times, validating %d, want once each", len(m), len(v))
	}
	for _, r := range []admissionv1.AdmissionRequest{m[0], v[0]} {
		if r.Kind != (metav1.GroupVersionKind{Group: group, Version: "v1", Kind: "Gadget"}) ||
			r.Resource != (metav1.GroupVersionResource{Group: group, Version: "v1", Resource: "gadgets"}) ||
			r.RequestKind == nil || *r.RequestKind != (metav1.GroupVersionKind{Group: group, Version: "v2", Kind: "Gadget"}) ||
			r.RequestResource == nil || *r.RequestResource != (metav1.GroupVersionResource{Group: group, Version: "v2", Resource: "gadgets"}) {
			e.Fatalf("sent kind %v resource %v requestKind %v requestResource %v, want v1 and the request's v2", r.Kind, r.Resource, r.RequestKind, r.RequestResource)
		}
	}
	var sent struct {
		APIVersion string            `json:"apiVersion"`
		Spec       map[string]string `json:"spec"`
	}
	if err := json.Unmarshal(m[0].Object.Raw, &sent); err != nil || sent.APIVersion != group+"/v1" || len(sent.Spec) != 1 || sent.Spec["color"] != "red" {
		e.Fatalf("the mutating webhook was sent %s (%v), want the object converted to v1", m[0].Object.Raw, err)
	}
	if err := json.Unmarshal(v[0].Object.Raw, &sent); err != nil || sent.APIVersion != group+"/v1" || sent.Spec["color"] != "red" || sent.Spec["size"] != "big" {
		e.Fatalf("the validating webhook was sent %s (%v), want the mutated object in v1", v[0].Object.Raw, err)
	}
}

// startGadgetConverter serves the conversion between v1's spec.color and
// v2's spec.colour over TLS; it returns the webhook's clientConfig.
func startGadgetConverter(e *env, group string) map[string]any {
	e.Helper()
	rename := func(u map[string]any, from, to string) {
		if spec, ok := u["spec"].(map[string]any); ok {
			if v, ok := spec[from]; ok {
				delete(spec, from)
				spec[to] = v
			}
		}
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Request    struct {
				UID               string           `json:"uid"`
				DesiredAPIVersion string           `json:"desiredAPIVersion"`
				Objects           []map[string]any `json:"objects"`
			} `json:"request"`
		}
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out := make([]map[string]any, 0, len(review.Request.Objects))
		for _, u := range review.Request.Objects {
			if review.Request.DesiredAPIVersion == group+"/v2" {
				rename(u, "color", "colour")
			} else {
				rename(u, "colour", "color")
			}
			u["apiVersion"] = review.Request.DesiredAPIVersion
			out = append(out, u)
		}
		resp := map[string]any{"apiVersion": review.APIVersion, "kind": review.Kind, "response": map[string]any{
			"uid": review.Request.UID, "convertedObjects": out, "result": map[string]any{"status": "Success"}}}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}))
	srv.StartTLS()
	e.Cleanup(srv.Close)
	return map[string]any{"url": srv.URL + "/convert", "caBundle": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})}
}

// createGadgetCRD serves gadgets of group in v1 and v2, converted by the
// webhook of clientConfig, and deletes the definition at the end.
func createGadgetCRD(e *env, group string, clientConfig map[string]any) {
	e.Helper()
	sch := map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
		"spec": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gadgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
			"versions": []any{
				map[string]any{"name": "v1", "served": true, "storage": true, "schema": sch},
				map[string]any{"name": "v2", "served": true, "storage": false, "schema": sch},
			},
			"conversion": map[string]any{"strategy": "Webhook", "webhook": map[string]any{
				"conversionReviewVersions": []any{"v1"}, "clientConfig": clientConfig,
			}},
		},
	}
	if err := e.c.Post().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Body(crd).Do(e.ctx).Error(); err != nil {
		e.Fatalf("create CRD: %v", err)
	}
	e.Cleanup(func() {
		_ = e.c.Delete().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Name("gadgets." + group).Do(context.Background()).Error()
	})
}

// webhooksSeeScaleWrites: a write of a Deployment's scale subresource is
// sent to the webhooks whose rules name deployments/scale (or */scale) as
// an UPDATE of an autoscaling/v1 Scale; a mutating webhook's change of the
// Scale is what is written; webhooks of deployments alone are not called.
func webhooksSeeScaleWrites(e *env) {
	withTime(e)
	scaleOf := func(raw []byte) autoscalingv1.Scale {
		var sc autoscalingv1.Scale
		_ = json.Unmarshal(raw, &sc)
		return sc
	}
	h := startHookServer(e, map[string]func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse{
		"/cap": func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			if scaleOf(r.Object.Raw).Spec.Replicas > 5 {
				return patchOps(map[string]any{"op": "replace", "path": "/spec/replicas", "value": 5})
			}
			return admission.Allowed()
		},
		"/refuse": func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			if scaleOf(r.Object.Raw).Spec.Replicas == 3 {
				return admission.Denied("three is not allowed")
			}
			return admission.Allowed()
		},
		"/main": func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse { return admission.Allowed() },
	})
	all := admissionregistrationv1.OperationAll
	h.register(hook{name: "cap.parity.kubego.test", path: "/cap", rules: rulesFor("apps", "v1", []string{"deployments/scale"}, all), mutating: true},
		hook{name: "refuse.parity.kubego.test", path: "/refuse", rules: rulesFor("*", "*", []string{"*/scale"}, admissionregistrationv1.Update)},
		hook{name: "main.parity.kubego.test", path: "/main", rules: rulesFor("apps", "v1", []string{"deployments"}, admissionregistrationv1.Update)})
	e.deployment("web", 1)
	setScale := func(ctx context.Context, replicas int32) (autoscalingv1.Scale, error) {
		var out autoscalingv1.Scale
		in := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: e.ns}, Spec: autoscalingv1.ScaleSpec{Replicas: replicas}}
		err := e.deploymentReq(http.MethodPut, "web", "scale").Body(in).Do(ctx).Into(&out)
		return out, err
	}
	// The two configurations are seen by kube-apiserver each in its own
	// time: wait for both.
	untilAdmitted(e, func(ctx context.Context, n int) error {
		h.reset()
		out, err := setScale(ctx, int32(10+n%2))
		if err != nil {
			return err
		}
		if out.Spec.Replicas != 5 || len(h.requests("/refuse")) == 0 {
			return errors.New("not capped and validated yet")
		}
		return nil
	})
	if _, err := setScale(e.ctx, 2); err != nil {
		e.Fatalf("scale to 2: %v", err)
	}
	h.reset()

	out, err := setScale(e.ctx, 7)
	if err != nil {
		e.Fatalf("scale to 7: %v", err)
	}
	var d appsv1.Deployment
	must(e, e.deploymentReq(http.MethodGet, "web").Do(e.ctx).Into(&d))
	if out.Spec.Replicas != 5 || *d.Spec.Replicas != 5 {
		e.Fatalf("scaled to %d, deployment at %d, want the mutating webhook's 5", out.Spec.Replicas, *d.Spec.Replicas)
	}
	if n := len(h.requests("/main")); n != 0 {
		e.Fatalf("the webhook of deployments was called %d times for a write of the scale", n)
	}
	m, v := h.requests("/cap"), h.requests("/refuse")
	if len(m) != 1 || len(v) != 1 {
		e.Fatalf("scale webhooks called %d and %d times, want once each", len(m), len(v))
	}
	scaleKind := metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
	deployments := metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	for i, r := range []admissionv1.AdmissionRequest{m[0], v[0]} {
		sc, old := scaleOf(r.Object.Raw), scaleOf(r.OldObject.Raw)
		want := []int32{7, 5}[i]
		if r.Operation != admissionv1.Update || r.SubResource != "scale" || r.RequestSubResource != "scale" || r.Kind != scaleKind || r.Resource != deployments ||
			r.RequestKind == nil || *r.RequestKind != scaleKind || r.Name != "web" || r.Namespace != e.ns ||
			sc.Kind != "Scale" || sc.APIVersion != "autoscaling/v1" || sc.Spec.Replicas != want || old.Kind != "Scale" || old.Spec.Replicas != 2 {
			e.Fatalf("webhook %d sent %s %v/%s kind %v, Scale %s, old %s; want an UPDATE of the Scale (%d replicas, old 2)",
				i, r.Operation, r.Resource, r.SubResource, r.Kind, r.Object.Raw, r.OldObject.Raw, want)
		}
	}

	err = e.deploymentReq(http.MethodPatch, "web", "scale").SetHeader("Content-Type", string(types.MergePatchType)).Body([]byte(`{"spec":{"replicas":3}}`)).Do(e.ctx).Error()
	se := wantStatus(e, err, http.StatusForbidden, metav1.StatusReasonForbidden)
	if want := `admission webhook "refuse.parity.kubego.test" denied the request: three is not allowed`; se.ErrStatus.Message != want {
		e.Fatalf("message %q, want %q", se.ErrStatus.Message, want)
	}
	must(e, e.deploymentReq(http.MethodGet, "web").Do(e.ctx).Into(&d))
	if *d.Spec.Replicas != 5 {
		e.Fatalf("after the refused patch the deployment has %d replicas, want 5", *d.Spec.Replicas)
	}
}

// deleteCollectionIsAdmittedObjectByObject: a DELETE of a collection
// sends each object's deletion to the webhooks (no name, the request's
// namespace, the object as oldObject), one after the other in name order;
// a refusal answers the request with its error and stops there.
func deleteCollectionIsAdmittedObjectByObject(e *env) {
	withTime(e)
	h := startHookServer(e, map[string]func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse{
		"/delete": func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			var cm corev1.ConfigMap
			if err := json.Unmarshal(r.OldObject.Raw, &cm); err != nil {
				return admission.Errored(http.StatusBadRequest, err)
			}
			if cm.Labels["keep"] == "yes" {
				return admission.Denied(cm.Name + " is kept")
			}
			return admission.Allowed()
		},
	})
	h.register(hook{name: "delete.parity.kubego.test", path: "/delete", rules: rulesFor("", "v1", []string{"configmaps"}, admissionregistrationv1.Delete)})
	e.configMap("probe", nil, map[string]string{"keep": "yes"})
	untilAdmitted(e, func(ctx context.Context, _ int) error {
		err := e.c.Delete().Namespace(e.ns).Resource("configmaps").Name("probe").Do(ctx).Error()
		if err == nil {
			e.Fatalf("the probe was deleted before the webhook was called")
		}
		if !strings.Contains(err.Error(), "probe is kept") {
			return err
		}
		return nil
	})
	for _, name := range []string{"a", "b", "c", "d"} {
		labels := map[string]string{"set": "x"}
		if name == "c" {
			labels["keep"] = "yes"
		}
		e.configMap(name, nil, labels)
	}
	h.reset()
	err := e.c.Delete().Namespace(e.ns).Resource("configmaps").Param("labelSelector", "set=x").Do(e.ctx).Error()
	se := wantStatus(e, err, http.StatusForbidden, metav1.StatusReasonForbidden)
	if want := `admission webhook "delete.parity.kubego.test" denied the request: c is kept`; se.ErrStatus.Message != want {
		e.Fatalf("message %q, want %q", se.ErrStatus.Message, want)
	}
	var left corev1.ConfigMapList
	must(e, e.c.Get().Namespace(e.ns).Resource("configmaps").Param("labelSelector", "set=x").Do(e.ctx).Into(&left))
	var names []string
	for _, cm := range left.Items {
		names = append(names, cm.Name)
	}
	if strings.Join(names, ",") != "c,d" {
		e.Fatalf("left %v, want c (refused) and d (after it)", names)
	}
	var sent []string
	for _, r := range h.requests("/delete") {
		var cm corev1.ConfigMap
		_ = json.Unmarshal(r.OldObject.Raw, &cm)
		if r.Operation != admissionv1.Delete || r.Name != "" || r.Namespace != e.ns || len(r.Object.Raw) != 0 {
			e.Fatalf("sent %s name %q namespace %q object %s; want a DELETE with no name, the request's namespace and no object", r.Operation, r.Name, r.Namespace, r.Object.Raw)
		}
		sent = append(sent, cm.Name)
	}
	if strings.Join(sent, ",") != "a,b,c" {
		e.Fatalf("sent the deletions of %v, want a, b, c", sent)
	}
}

// validatingWebhooksAreCalledAtOnce: the first of two validating webhooks
// answers only once the second has been sent the same object, which only
// calls made at once allow within the first's wait.
func validatingWebhooksAreCalledAtOnce(e *env) {
	withTime(e)
	var mu sync.Mutex
	called := map[string]chan struct{}{}
	seen := func(name string) chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		if called[name] == nil {
			called[name] = make(chan struct{})
		}
		return called[name]
	}
	nameOf := func(r *admissionv1.AdmissionRequest) string {
		var cm corev1.ConfigMap
		_ = json.Unmarshal(r.Object.Raw, &cm)
		return cm.Name
	}
	h := startHookServer(e, map[string]func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse{
		"/first": func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			select {
			case <-seen(nameOf(r)):
				return admission.Denied("first says no")
			case <-time.After(10 * time.Second):
				return admission.Denied("the second webhook was not called meanwhile")
			}
		},
		"/second": func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			ch := seen(nameOf(r))
			mu.Lock()
			select {
			case <-ch:
			default:
				close(ch)
			}
			mu.Unlock()
			return admission.Allowed()
		},
	})
	rules := rulesFor("", "v1", []string{"configmaps"}, admissionregistrationv1.Create)
	h.register(hook{name: "first.parity.kubego.test", path: "/first", rules: rules},
		hook{name: "second.parity.kubego.test", path: "/second", rules: rules})
	untilAdmitted(e, func(ctx context.Context, n int) error {
		err := e.c.Post().Namespace(e.ns).Resource("configmaps").Body(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("probe-%d", n)}}).Do(ctx).Error()
		if err == nil {
			return errors.New("not refused yet")
		}
		return nil
	})
	h.reset()
	err := e.c.Post().Namespace(e.ns).Resource("configmaps").Body(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}).Do(e.ctx).Error()
	se := wantStatus(e, err, http.StatusForbidden, metav1.StatusReasonForbidden)
	if want := `admission webhook "first.parity.kubego.test" denied the request: first says no`; se.ErrStatus.Message != want {
		e.Fatalf("message %q, want %q", se.ErrStatus.Message, want)
	}
	if f, s := len(h.requests("/first")), len(h.requests("/second")); f != 1 || s != 1 {
		e.Fatalf("called %d and %d times, want both once", f, s)
	}
}

// deleteCollectionAnswersAsListed: a DELETE of a collection answers with
// the objects as they were listed before the deletions (an object a
// finalizer holds without its deletionTimestamp, every object at its
// resourceVersion of before), as kube-apiserver's registry does.
func deleteCollectionAnswersAsListed(e *env) {
	held := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"set": "y"}, Finalizers: []string{"kubego.test/hold"}}}
	var a corev1.ConfigMap
	must(e, e.c.Post().Namespace(e.ns).Resource("configmaps").Body(held).Do(e.ctx).Into(&a))
	e.Cleanup(func() {
		_ = e.c.Patch(types.MergePatchType).Namespace(e.ns).Resource("configmaps").Name("a").Body([]byte(`{"metadata":{"finalizers":null}}`)).Do(context.Background()).Error()
	})
	b := e.configMap("b", nil, map[string]string{"set": "y"})
	var list corev1.ConfigMapList
	must(e, e.c.Delete().Namespace(e.ns).Resource("configmaps").Param("labelSelector", "set=y").Do(e.ctx).Into(&list))
	if len(list.Items) != 2 {
		e.Fatalf("answered %d items, want a and b", len(list.Items))
	}
	for i, want := range []*corev1.ConfigMap{&a, b} {
		got := list.Items[i]
		if got.Name != want.Name || got.ResourceVersion != want.ResourceVersion || got.DeletionTimestamp != nil {
			e.Fatalf("item %d: %s at resourceVersion %s, deletionTimestamp %v; want %s as listed, at %s", i, got.Name, got.ResourceVersion, got.DeletionTimestamp, want.Name, want.ResourceVersion)
		}
	}
	got, err := e.getConfigMap("a")
	if err != nil || got.DeletionTimestamp == nil {
		e.Fatalf("a after the delete: %v, deletionTimestamp %v; want it held by its finalizer, marked", err, got.DeletionTimestamp)
	}
}
