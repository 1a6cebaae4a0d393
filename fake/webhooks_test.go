package fake_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/webhook/admission"
	"github.com/kubego/kubego/webhook/conversion"
)

// warnings collects the Warning headers a client is told about.
type warnings struct {
	mu   sync.Mutex
	text []string
}

func (w *warnings) HandleWarning(_ int, _, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text = append(w.text, text)
}

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.text...)
}

// hookFixture is a fake server in a bubble with in-process webhooks and a
// client of it.
type hookFixture struct {
	t   *testing.T
	srv *fake.Server
	c   *rest.Client
	w   *warnings
}

func newHookFixture(t *testing.T, hooks map[string]http.Handler) *hookFixture {
	t.Helper()
	srv := fake.NewServer(fake.Options{Webhooks: hooks})
	t.Cleanup(srv.Close)
	cfg := srv.InProcessConfig()
	w := &warnings{}
	cfg.WarningHandler = w
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &hookFixture{t: t, srv: srv, c: c, w: w}
}

func (f *hookFixture) register(obj any, res string) {
	f.t.Helper()
	if err := f.c.Post().Group("admissionregistration.k8s.io").Version("v1").Resource(res).Body(obj).Do(f.t.Context()).Error(); err != nil {
		f.t.Fatalf("create %s: %v", res, err)
	}
}

func (f *hookFixture) createConfigMap(cm *corev1.ConfigMap, params ...string) (*corev1.ConfigMap, error) {
	var out corev1.ConfigMap
	req := f.c.Post().Namespace("default").Resource("configmaps").Body(cm)
	for i := 0; i+1 < len(params); i += 2 {
		req = req.Param(params[i], params[i+1])
	}
	err := req.Do(f.t.Context()).Into(&out)
	return &out, err
}

func cmRules(ops ...admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{Operations: ops,
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}
}

func mutatingHook(name, url string, mod func(*admissionregistrationv1.MutatingWebhook)) admissionregistrationv1.MutatingWebhook {
	none := admissionregistrationv1.SideEffectClassNone
	h := admissionregistrationv1.MutatingWebhook{Name: name, ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url},
		Rules: cmRules(admissionregistrationv1.Create), SideEffects: &none, AdmissionReviewVersions: []string{"v1"}}
	if mod != nil {
		mod(&h)
	}
	return h
}

func validatingHook(name, url string, mod func(*admissionregistrationv1.ValidatingWebhook)) admissionregistrationv1.ValidatingWebhook {
	none := admissionregistrationv1.SideEffectClassNone
	h := admissionregistrationv1.ValidatingWebhook{Name: name, ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url},
		Rules: cmRules(admissionregistrationv1.Create), SideEffects: &none, AdmissionReviewVersions: []string{"v1"}}
	if mod != nil {
		mod(&h)
	}
	return h
}

// labelDefaulter sets label key to value on a ConfigMap, counting calls.
func labelDefaulter(calls *atomic.Int64, key, value string) http.Handler {
	return admission.New(admission.Defaulting[corev1.ConfigMap](admission.DefaulterFunc[*corev1.ConfigMap](func(_ context.Context, cm *corev1.ConfigMap) error {
		calls.Add(1)
		if cm.Labels == nil {
			cm.Labels = map[string]string{}
		}
		cm.Labels[key] = value
		return nil
	}), admission.TypedOptions{}), admission.Options{})
}

func TestInProcessWebhooksDefaultRefuseAndWarnInFakeTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int64
		refuse := admission.New(admission.Validating[corev1.ConfigMap](admission.ValidatorFuncs[*corev1.ConfigMap]{
			Create: func(_ context.Context, cm *corev1.ConfigMap) (admission.Warnings, error) {
				if cm.Labels["team"] != "a" {
					return nil, errors.New("team a only")
				}
				return admission.Warnings{"checked by the team webhook"}, nil
			},
		}, admission.TypedOptions{}), admission.Options{})
		svc := admissionregistrationv1.ServiceReference{Namespace: "hooks", Name: "validator", Path: new("/validate")}
		f := newHookFixture(t, map[string]http.Handler{
			"https://hooks.test/default": labelDefaulter(&calls, "team", "a"),
			fake.ServiceWebhookURL(svc):  refuse,
		})
		f.register(&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "m"},
			Webhooks: []admissionregistrationv1.MutatingWebhook{mutatingHook("default.team.test", "https://hooks.test/default", func(h *admissionregistrationv1.MutatingWebhook) {
				h.ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "skip", Operator: metav1.LabelSelectorOpDoesNotExist}}}
			})}}, "mutatingwebhookconfigurations")
		f.register(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{validatingHook("validate.team.test", "", func(h *admissionregistrationv1.ValidatingWebhook) {
				h.ClientConfig = admissionregistrationv1.WebhookClientConfig{Service: &svc}
			})}}, "validatingwebhookconfigurations")

		out, err := f.createConfigMap(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "defaulted"}})
		if err != nil {
			t.Fatal(err)
		}
		if out.Labels["team"] != "a" || calls.Load() != 1 {
			t.Fatalf("labels %v after %d calls, want the webhook's team label", out.Labels, calls.Load())
		}
		if w := f.w.all(); len(w) != 1 || w[0] != "checked by the team webhook" {
			t.Fatalf("warnings %q, want the validating webhook's", w)
		}
		// The object selector keeps the defaulter out; the validator refuses.
		_, err = f.createConfigMap(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "skipped", Labels: map[string]string{"skip": "1"}}})
		var se *apierrors.StatusError
		if !errors.As(err, &se) || se.ErrStatus.Code != http.StatusForbidden ||
			se.ErrStatus.Message != `admission webhook "validate.team.test" denied the request: team a only` {
			t.Fatalf("got %v, want the validator's denial", err)
		}
		if calls.Load() != 1 {
			t.Fatalf("the defaulter was called for an object its selector leaves out")
		}
	})
}

func TestWebhookFailurePolicyDecidesWhatATimeoutMeans(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy admissionregistrationv1.FailurePolicyType
		want   int32 // 0: admitted
	}{
		{"FailRefusesTheWrite", admissionregistrationv1.Fail, http.StatusInternalServerError},
		{"IgnoreAdmitsTheWrite", admissionregistrationv1.Ignore, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				hang := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if got := r.URL.Query().Get("timeout"); got != "3s" {
						t.Errorf("the webhook's URL carries timeout=%q, want 3s", got)
					}
					<-r.Context().Done()
				})
				f := newHookFixture(t, map[string]http.Handler{"https://hooks.test/slow": hang})
				f.register(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v"},
					Webhooks: []admissionregistrationv1.ValidatingWebhook{validatingHook("slow.hooks.test", "https://hooks.test/slow", func(h *admissionregistrationv1.ValidatingWebhook) {
						h.FailurePolicy, h.TimeoutSeconds = &tc.policy, new(int32(3))
					})}}, "validatingwebhookconfigurations")
				start := time.Now()
				_, err := f.createConfigMap(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}})
				if waited := time.Since(start); waited != 3*time.Second {
					t.Errorf("the call took %v of fake time, want the webhook's timeout of 3s", waited)
				}
				if tc.want == 0 {
					if err != nil {
						t.Fatalf("got %v, want the write admitted", err)
					}
					return
				}
				var se *apierrors.StatusError
				if !errors.As(err, &se) || se.ErrStatus.Code != tc.want || !strings.Contains(se.ErrStatus.Message, `failed calling webhook "slow.hooks.test"`) {
					t.Fatalf("got %v, want %d failed calling webhook", err, tc.want)
				}
			})
		})
	}
}

func TestWebhookRefusals(t *testing.T) {
	some := admissionregistrationv1.SideEffectClassSome
	for _, tc := range []struct {
		name   string
		hook   admissionregistrationv1.ValidatingWebhook
		params []string
		code   int32
		msg    string
	}{
		{"DryRunIsRefusedByAWebhookWithSideEffects",
			validatingHook("effects.hooks.test", "https://hooks.test/ok", func(h *admissionregistrationv1.ValidatingWebhook) { h.SideEffects = &some }),
			[]string{"dryRun", "All"}, http.StatusBadRequest, `admission webhook "effects.hooks.test" does not support dry run`},
		{"AnUnmappedServiceCannotBeReached",
			validatingHook("svc.hooks.test", "", func(h *admissionregistrationv1.ValidatingWebhook) {
				h.ClientConfig = admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: "x", Name: "y"}}
			}),
			nil, http.StatusInternalServerError, `failed calling webhook "svc.hooks.test": fake: webhook unreachable: service x/y is not mapped`},
		{"AWebhookWithoutReviewVersionV1FailsTheCall",
			validatingHook("v1beta1.hooks.test", "https://hooks.test/ok", func(h *admissionregistrationv1.ValidatingWebhook) { h.AdmissionReviewVersions = []string{"v1beta1"} }),
			nil, http.StatusInternalServerError, "does not accept the AdmissionReview version v1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ok := admission.New(admission.HandlerFunc(func(context.Context, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
					return admission.Allowed()
				}), admission.Options{})
				f := newHookFixture(t, map[string]http.Handler{"https://hooks.test/ok": ok})
				f.register(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v"},
					Webhooks: []admissionregistrationv1.ValidatingWebhook{tc.hook}}, "validatingwebhookconfigurations")
				_, err := f.createConfigMap(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}, tc.params...)
				var se *apierrors.StatusError
				if !errors.As(err, &se) || se.ErrStatus.Code != tc.code || !strings.Contains(se.ErrStatus.Message, tc.msg) {
					t.Fatalf("got %v, want %d %q", err, tc.code, tc.msg)
				}
			})
		})
	}
}

func TestWebhookConfigurationWithAuthorizerMatchConditionsIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newHookFixture(t, nil)
		cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{validatingHook("cel.hooks.test", "https://hooks.test/ok", func(h *admissionregistrationv1.ValidatingWebhook) {
				h.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: "authorizer.group('').resource('pods').check('get').allowed()"}}
			})}}
		err := f.c.Post().Group("admissionregistration.k8s.io").Version("v1").Resource("validatingwebhookconfigurations").Body(cfg).Do(t.Context()).Error()
		var se *apierrors.StatusError
		if !errors.As(err, &se) || se.ErrStatus.Code != http.StatusNotImplemented || !strings.Contains(se.ErrStatus.Message, "authorizer") {
			t.Fatalf("got %v, want 501 naming authorizer", err)
		}
		if err := f.srv.Add(cfg); !errors.Is(err, fake.ErrUnsupportedWebhook) {
			t.Fatalf("Add: got %v, want ErrUnsupportedWebhook", err)
		}
	})
}

func TestMutatingWebhooksRunInOrderAndAreReinvokedIfNeeded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var first, second atomic.Int64
		var order []string
		var mu sync.Mutex
		seen := func(name string, h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
				h.ServeHTTP(w, r)
			})
		}
		f := newHookFixture(t, map[string]http.Handler{
			"https://hooks.test/first":  seen("first", labelDefaulter(&first, "first", "1")),
			"https://hooks.test/second": seen("second", labelDefaulter(&second, "second", "2")),
		})
		ifNeeded := admissionregistrationv1.IfNeededReinvocationPolicy
		// Configurations are called by name: "a" before "b".
		f.register(&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "b"},
			Webhooks: []admissionregistrationv1.MutatingWebhook{mutatingHook("second.hooks.test", "https://hooks.test/second", nil)}}, "mutatingwebhookconfigurations")
		f.register(&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "a"},
			Webhooks: []admissionregistrationv1.MutatingWebhook{mutatingHook("first.hooks.test", "https://hooks.test/first", func(h *admissionregistrationv1.MutatingWebhook) {
				h.ReinvocationPolicy = &ifNeeded
			})}}, "mutatingwebhookconfigurations")
		out, err := f.createConfigMap(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}})
		if err != nil {
			t.Fatal(err)
		}
		if out.Labels["first"] != "1" || out.Labels["second"] != "2" {
			t.Fatalf("labels %v, want both webhooks'", out.Labels)
		}
		mu.Lock()
		defer mu.Unlock()
		if strings.Join(order, ",") != "first,second,first" {
			t.Fatalf("called %v, want first, second, then first again (IfNeeded, the second changed the object)", order)
		}
	})
}

func TestInProcessConversionWebhookInFakeTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const group = "conv.fake.test"
		var fail atomic.Bool
		wh := conversion.New(conversion.Options{})
		conv := func(_ context.Context, obj []byte, desired string) ([]byte, error) {
			if fail.Load() {
				return nil, errors.New("converter broken")
			}
			var u map[string]any
			if err := json.Unmarshal(obj, &u); err != nil {
				return nil, err
			}
			u["apiVersion"] = desired
			u["spec"] = map[string]any{"seenBy": desired}
			return json.Marshal(u)
		}
		wh.RegisterFunc(group+"/v1", group+"/v2", conv)
		wh.RegisterFunc(group+"/v2", group+"/v1", conv)
		svc := admissionregistrationv1.ServiceReference{Namespace: "conv", Name: "converter", Path: new("/convert")}
		f := newHookFixture(t, map[string]http.Handler{fake.ServiceWebhookURL(svc): wh})
		sch := map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
			"spec": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}
		crd := map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": "things." + group},
			"spec": map[string]any{
				"group": group, "scope": "Namespaced",
				"names": map[string]any{"plural": "things", "kind": "Thing"},
				"versions": []any{
					map[string]any{"name": "v1", "served": true, "storage": true, "schema": sch},
					map[string]any{"name": "v2", "served": true, "storage": false, "schema": sch},
				},
				"conversion": map[string]any{"strategy": "Webhook", "webhook": map[string]any{
					"conversionReviewVersions": []any{"v1"},
					"clientConfig":             map[string]any{"service": map[string]any{"namespace": "conv", "name": "converter", "path": "/convert"}},
				}},
			},
		}
		ctx := t.Context()
		if err := f.c.Post().Group("apiextensions.k8s.io").Version("v1").Resource("customresourcedefinitions").Body(crd).Do(ctx).Error(); err != nil {
			t.Fatal(err)
		}
		at := func(verb, v string) *rest.Request {
			return f.c.Verb(verb).Group(group).Version(v).Namespace("default").Resource("things")
		}
		obj := map[string]any{"apiVersion": group + "/v1", "kind": "Thing", "metadata": map[string]any{"name": "t"}, "spec": map[string]any{}}
		if err := at(http.MethodPost, "v1").Body(obj).Do(ctx).Error(); err != nil {
			t.Fatal(err)
		}
		var got unstructured.Unstructured
		if err := at(http.MethodGet, "v2").Name("t").Do(ctx).Into(&got); err != nil {
			t.Fatal(err)
		}
		if seen, _, _ := unstructured.NestedString(got.Object, "spec", "seenBy"); seen != group+"/v2" {
			t.Fatalf("read through v2: %v, want the webhook's conversion", got.Object)
		}
		// A conversion that fails makes reads in the other version fail
		// with the webhook's message, as on kube-apiserver.
		fail.Store(true)
		obj["metadata"] = map[string]any{"name": "u"}
		if err := at(http.MethodPost, "v1").Body(obj).Do(ctx).Error(); err != nil {
			t.Fatal(err)
		}
		err := at(http.MethodGet, "v2").Name("u").Do(ctx).Error()
		var se *apierrors.StatusError
		if !errors.As(err, &se) || se.ErrStatus.Code != http.StatusInternalServerError || !strings.Contains(se.ErrStatus.Message, "converter broken") {
			t.Fatalf("got %v, want 500 with the converter's message", err)
		}
		if err := at(http.MethodGet, "v1").Name("u").Do(ctx).Error(); err != nil {
			t.Fatalf("the version it was written in: %v", err)
		}
	})
}
