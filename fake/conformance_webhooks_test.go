package fake_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/webhook/admission"
	"github.com/kubego/kubego/webhook/conversion"
)

// webhookCases are the admission webhooks a server calls: both servers
// call the same webhooks over HTTPS, verified with the configuration's
// caBundle, and answer the same.
func webhookCases() []conformanceCase {
	return []conformanceCase{
		{"AdmissionWebhooksDefaultAndRefuseObjects", func(e *env) {
			hooks := startConfigMapWebhooks(e)
			// kube-apiserver starts calling new webhooks after its
			// configuration informer sees them: wait for the effect.
			probe := 0
			kubegotest.Eventually(e.ctx, e.T, func(ctx context.Context) error {
				probe++
				name := "probe-" + string(rune('a'+probe%26)) + string(rune('a'+probe/26%26))
				var out corev1.ConfigMap
				in := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}
				if err := e.c.Post().Namespace(e.ns).Resource("configmaps").Body(in).Do(ctx).Into(&out); err != nil {
					return err
				}
				if out.Data["defaulted"] != "yes" {
					return errors.New("not defaulted yet")
				}
				return nil
			})
			hooks.reset()

			var out corev1.ConfigMap
			in := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "plain", Labels: map[string]string{"app": "x"}}, Data: map[string]string{"k": "v"}}
			if err := e.c.Post().Namespace(e.ns).Resource("configmaps").Body(in).Do(e.ctx).Into(&out); err != nil {
				e.Fatalf("create: %v", err)
			}
			if out.Data["defaulted"] != "yes" || out.Data["k"] != "v" || out.Labels["app"] != "x" {
				e.Fatalf("stored %v %v, want the webhook's default beside the written data", out.Labels, out.Data)
			}
			// The webhook's change is nobody's in managedFields.
			for _, mf := range out.ManagedFields {
				if mf.FieldsV1 != nil && strings.Contains(string(mf.FieldsV1.Raw), "defaulted") {
					e.Fatalf("managedFields entry %s owns the webhook's field", mf.Manager)
				}
			}
			m, v := hooks.last()
			if m.Operation != admissionv1.Create || m.Name != "plain" || m.Namespace != e.ns || m.SubResource != "" ||
				m.Kind != (metav1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}) ||
				m.Resource != (metav1.GroupVersionResource{Version: "v1", Resource: "configmaps"}) || m.DryRun == nil || *m.DryRun {
				e.Fatalf("the mutating webhook got %+v", m)
			}
			if m.uid || m.created || !v.uid || !v.created || !v.defaulted || m.options != "CreateOptions" || v.options != "CreateOptions" {
				e.Fatalf("mutating webhook saw uid %v creationTimestamp %v options %s; validating saw uid %v creationTimestamp %v default %v options %s",
					m.uid, m.created, m.options, v.uid, v.created, v.defaulted, v.options)
			}

			bad := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bad"}, Data: map[string]string{"forbidden": "x"}}
			err := e.c.Post().Namespace(e.ns).Resource("configmaps").Body(bad).Do(e.ctx).Error()
			se := wantStatus(e, err, http.StatusForbidden, metav1.StatusReasonForbidden)
			if want := `admission webhook "validate.conformance.kubego.test" denied the request: the key forbidden is not allowed`; se.ErrStatus.Message != want {
				e.Fatalf("message %q, want %q", se.ErrStatus.Message, want)
			}
			if _, err := e.getConfigMap("bad"); err == nil {
				e.Fatalf("the refused configmap was stored")
			}

			// An update goes through both again, with the old object.
			hooks.reset()
			out.Data = map[string]string{"k": "w"}
			var upd corev1.ConfigMap
			if err := e.c.Put().Namespace(e.ns).Resource("configmaps").Name("plain").Body(&out).Do(e.ctx).Into(&upd); err != nil {
				e.Fatalf("update: %v", err)
			}
			if upd.Data["defaulted"] != "yes" || upd.Data["k"] != "w" {
				e.Fatalf("updated to %v, want the default again", upd.Data)
			}
			m, v = hooks.last()
			if m.Operation != admissionv1.Update || !m.hadOld || !v.hadOld || m.options != "UpdateOptions" || !m.uid {
				e.Fatalf("update: mutating got %+v, validating %+v", m, v)
			}
			out = upd
			out.Data = map[string]string{"forbidden": "now"}
			err = e.c.Put().Namespace(e.ns).Resource("configmaps").Name("plain").Body(&out).Do(e.ctx).Error()
			wantStatus(e, err, http.StatusForbidden, metav1.StatusReasonForbidden)

			// A delete is sent to the validating webhook with the old object.
			hooks.reset()
			if err := e.c.Delete().Namespace(e.ns).Resource("configmaps").Name("plain").Do(e.ctx).Error(); err != nil {
				e.Fatalf("delete: %v", err)
			}
			if _, v := hooks.last(); v.Operation != admissionv1.Delete || !v.hadOld || v.hadObject || v.options != "DeleteOptions" {
				e.Fatalf("delete: validating got %+v", v)
			}
		}},
		{"ConversionWebhookConvertsBetweenVersions", conversionRoundTrip},
	}
}

// conversionRoundTrip serves a custom resource in two versions whose
// field spec.color (v1) is spec.colour in v2, converted by a webhook: an
// object written through either version reads the same through both.
func conversionRoundTrip(e *env) {
	group := e.ns + ".kubego.dev"
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
	srv := httptest.NewUnstartedServer(wh)
	srv.StartTLS()
	e.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})

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
				"conversionReviewVersions": []any{"v1"},
				"clientConfig":             map[string]any{"url": srv.URL + "/convert", "caBundle": ca},
			}},
		},
	}
	if err := e.c.Post().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Body(crd).Do(e.ctx).Error(); err != nil {
		e.Fatalf("create CRD: %v", err)
	}
	e.Cleanup(func() {
		_ = e.c.Delete().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Name("gadgets." + group).Do(context.Background()).Error()
	})
	at := func(verb, version string) *rest.Request {
		return e.c.Verb(verb).Group(group).Version(version).Namespace(e.ns).Resource("gadgets")
	}
	for _, v := range []string{"v1", "v2"} {
		kubegotest.Eventually(e.ctx, e.T, func(ctx context.Context) error { return at(http.MethodGet, v).Do(ctx).Error() })
	}
	write := func(verb, version, name, field, value string, rv string) {
		e.Helper()
		md := map[string]any{"name": name}
		if rv != "" {
			md["resourceVersion"] = rv
		}
		body := map[string]any{"apiVersion": group + "/" + version, "kind": "Gadget", "metadata": md, "spec": map[string]any{field: value}}
		req := at(verb, version).Body(body)
		if verb == http.MethodPut {
			req = req.Name(name)
		}
		if err := req.Do(e.ctx).Error(); err != nil {
			e.Fatalf("%s %s %s: %v", verb, version, name, err)
		}
	}
	read := func(version, name string) *unstructured.Unstructured {
		e.Helper()
		var u unstructured.Unstructured
		if err := at(http.MethodGet, version).Name(name).Do(e.ctx).Into(&u); err != nil {
			e.Fatalf("get %s %s: %v", version, name, err)
		}
		return &u
	}
	want := func(u *unstructured.Unstructured, version, field, value string) {
		e.Helper()
		spec, _, _ := unstructured.NestedStringMap(u.Object, "spec")
		if u.GetAPIVersion() != group+"/"+version || len(spec) != 1 || spec[field] != value {
			e.Fatalf("%s %s: apiVersion %s spec %v, want spec.%s %q", u.GetName(), version, u.GetAPIVersion(), spec, field, value)
		}
	}
	write(http.MethodPost, "v1", "a", "color", "red", "")
	write(http.MethodPost, "v2", "b", "colour", "blue", "")
	a1, a2 := read("v1", "a"), read("v2", "a")
	want(a1, "v1", "color", "red")
	want(a2, "v2", "colour", "red")
	if a1.GetUID() != a2.GetUID() || a1.GetResourceVersion() != a2.GetResourceVersion() {
		e.Fatalf("the versions are two objects: uid %s/%s rv %s/%s", a1.GetUID(), a2.GetUID(), a1.GetResourceVersion(), a2.GetResourceVersion())
	}
	want(read("v1", "b"), "v1", "color", "blue")
	want(read("v2", "b"), "v2", "colour", "blue")
	var list unstructured.UnstructuredList
	if err := at(http.MethodGet, "v2").Do(e.ctx).Into(&list); err != nil {
		e.Fatalf("list v2: %v", err)
	}
	if len(list.Items) != 2 {
		e.Fatalf("listed %d gadgets in v2, want 2", len(list.Items))
	}
	for _, it := range list.Items {
		if _, ok, _ := unstructured.NestedString(it.Object, "spec", "colour"); !ok || it.GetAPIVersion() != group+"/v2" {
			e.Fatalf("listed %s %v, want it in v2", it.GetAPIVersion(), it.Object["spec"])
		}
	}
	write(http.MethodPut, "v2", "a", "colour", "green", a2.GetResourceVersion())
	want(read("v1", "a"), "v1", "color", "green")
}

// seenRequest is what a test webhook was sent.
type seenRequest struct {
	admissionv1.AdmissionRequest
	uid, created, defaulted bool
	hadOld, hadObject       bool
	options                 string
}

// configMapWebhooks are a defaulting and a validating webhook of the
// ConfigMaps of one namespace, served over HTTPS on loopback and
// registered through the API.
type configMapWebhooks struct {
	mu         sync.Mutex
	mut, valid seenRequest
}

func (h *configMapWebhooks) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.mut, h.valid = seenRequest{}, seenRequest{}
}

func (h *configMapWebhooks) last() (mutating, validating seenRequest) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.mut, h.valid
}

func (h *configMapWebhooks) record(into *seenRequest, r *admissionv1.AdmissionRequest, cm *corev1.ConfigMap) {
	h.mu.Lock()
	defer h.mu.Unlock()
	*into = seenRequest{AdmissionRequest: *r.DeepCopy(), hadOld: len(r.OldObject.Raw) > 0, hadObject: len(r.Object.Raw) > 0}
	if cm != nil {
		into.uid, into.created, into.defaulted = cm.UID != "", !cm.CreationTimestamp.IsZero(), cm.Data["defaulted"] == "yes"
	}
	var o metav1.TypeMeta
	if err := json.Unmarshal(r.Options.Raw, &o); err == nil {
		into.options = o.Kind
	}
}

// webhookMux serves the two webhooks at /default and /validate.
func (h *configMapWebhooks) mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/default", admission.New(admission.Defaulting[corev1.ConfigMap](admission.DefaulterFunc[*corev1.ConfigMap](func(ctx context.Context, cm *corev1.ConfigMap) error {
		h.record(&h.mut, admission.RequestFrom(ctx), cm)
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data["defaulted"] = "yes"
		return nil
	}), admission.TypedOptions{}), admission.Options{}))
	check := func(ctx context.Context, cm *corev1.ConfigMap) (admission.Warnings, error) {
		h.record(&h.valid, admission.RequestFrom(ctx), cm)
		if _, ok := cm.Data["forbidden"]; ok {
			return nil, errors.New("the key forbidden is not allowed")
		}
		return admission.Warnings{"configmap checked"}, nil
	}
	mux.Handle("/validate", admission.New(admission.Validating[corev1.ConfigMap](admission.ValidatorFuncs[*corev1.ConfigMap]{
		Create: check,
		Update: func(ctx context.Context, _, cm *corev1.ConfigMap) (admission.Warnings, error) { return check(ctx, cm) },
		Delete: func(ctx context.Context, cm *corev1.ConfigMap) (admission.Warnings, error) {
			h.record(&h.valid, admission.RequestFrom(ctx), nil)
			return nil, nil
		},
	}, admission.TypedOptions{}), admission.Options{}))
	return mux
}

// startConfigMapWebhooks serves the webhooks on loopback over TLS and
// registers them for e's namespace (the configurations are cluster-wide:
// their selector keeps other tests out); both are removed at the end.
func startConfigMapWebhooks(e *env) *configMapWebhooks {
	e.Helper()
	h := &configMapWebhooks{}
	srv := httptest.NewUnstartedServer(h.mux())
	srv.StartTLS()
	e.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	name := "conformance-" + e.ns
	nsSel := &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": e.ns}}
	rules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
	}}
	none := admissionregistrationv1.SideEffectClassNone
	fail := admissionregistrationv1.Fail
	url := func(p string) *string { u := srv.URL + p; return &u }
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "default.conformance.kubego.test", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: url("/default"), CABundle: ca},
			Rules: rules, NamespaceSelector: nsSel, SideEffects: &none, FailurePolicy: &fail, AdmissionReviewVersions: []string{"v1"},
		}}}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "validate.conformance.kubego.test", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: url("/validate"), CABundle: ca},
			Rules: rules, NamespaceSelector: nsSel, SideEffects: &none, FailurePolicy: &fail, AdmissionReviewVersions: []string{"v1"},
		}}}
	for res, obj := range map[string]any{"mutatingwebhookconfigurations": mwc, "validatingwebhookconfigurations": vwc} {
		if err := e.c.Post().Group("admissionregistration.k8s.io").Version("v1").Resource(res).Body(obj).Do(e.ctx).Error(); err != nil {
			e.Fatalf("create %s: %v", res, err)
		}
		e.Cleanup(func() {
			_ = e.c.Delete().Group("admissionregistration.k8s.io").Version("v1").Resource(res).Name(name).Do(context.Background()).Error()
		})
	}
	return h
}
