package webhookconfig_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/webhook/admission"
	"github.com/kubego/kubego/webhook/conversion"
	"github.com/kubego/kubego/webhookconfig"
)

// Widget is a custom resource's Go type.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size int `json:"size,omitempty"`
	} `json:"spec,omitempty"`
}

func (w *Widget) DeepCopyObject() runtime.Object { return client.DeepCopy(w) }

var widgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// offlineClient maps Widget through its Registry; it never reaches a
// server.
func offlineClient(t *testing.T) *client.Client {
	t.Helper()
	rc, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	reg := client.NewRegistry()
	client.Register[*Widget](reg, widgets, true)
	return client.New(rc, client.Options{Registry: reg})
}

var (
	allowWidgets = admission.ValidatorFuncs[*Widget]{}
	noDefaults   = admission.DefaulterFunc[*Widget](func(context.Context, *Widget) error { return nil })
	allowPods    = admission.ValidatorFuncs[*corev1.Pod]{}
)

// One registration per handler gives the handler's path on the server and
// a webhook whose rules name the handler type's resource, with the
// options given and kube-apiserver's v1 requirements filled in.
func TestConfigurationsFollowTheRegisteredHandlers(t *testing.T) {
	mux := http.NewServeMux()
	set := webhookconfig.NewSet("widgets", mux)
	timeout := int32(5)
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"webhooks": "on"}}
	webhookconfig.Validate[Widget](set, "/validate-widgets", allowWidgets, webhookconfig.Admission{
		Operations:      []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Delete},
		FailurePolicy:   admissionregistrationv1.Ignore,
		TimeoutSeconds:  timeout,
		MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "not-system", Expression: "!request.userInfo.username.startsWith('system:')"}},
		ObjectSelector:  sel,
	})
	webhookconfig.Default[Widget](set, "/default-widgets", noDefaults, webhookconfig.Admission{Subresources: []string{"status"}})
	webhookconfig.Validate[corev1.Pod](set, "/validate-pods", allowPods, webhookconfig.Admission{Name: "pods.example.com", NamespaceSelector: sel})
	webhookconfig.Convert[Widget](set, "/convert-widgets", conversion.New(conversion.Options{}))

	for _, path := range []string{"/validate-widgets", "/default-widgets", "/validate-pods", "/convert-widgets"} {
		if _, pattern := mux.Handler(&http.Request{Method: "POST", URL: mustURL(t, path)}); pattern != path {
			t.Errorf("path %s not mounted (pattern %q)", path, pattern)
		}
	}

	bundle := []byte("-----BEGIN CERTIFICATE-----\n")
	cfgs, err := set.Configurations(t.Context(), offlineClient(t), webhookconfig.Target{
		Service: &admissionregistrationv1.ServiceReference{Namespace: "widgets-system", Name: "widgets-webhook"}, CABundle: bundle,
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfgs.Validating == nil || cfgs.Mutating == nil || cfgs.Validating.Name != "widgets" || cfgs.Mutating.Name != "widgets" {
		t.Fatalf("configurations %+v, want both named widgets", cfgs)
	}
	if k := cfgs.Validating.GetObjectKind().GroupVersionKind(); k.Kind != "ValidatingWebhookConfiguration" || k.Version != "v1" {
		t.Errorf("validating configuration typed %s", k)
	}
	ns := admissionregistrationv1.NamespacedScope
	v := cfgs.Validating.Webhooks
	if len(v) != 2 {
		t.Fatalf("%d validating webhooks, want 2", len(v))
	}
	w := v[0]
	wantRules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Delete},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}, Scope: &ns},
	}}
	switch {
	case w.Name != "validate-widgets.widgets.kubego.io":
		t.Errorf("default name %q", w.Name)
	case !reflect.DeepEqual(w.Rules, wantRules):
		t.Errorf("rules %+v, want %+v", w.Rules, wantRules)
	case *w.FailurePolicy != admissionregistrationv1.Ignore || *w.TimeoutSeconds != 5 || *w.SideEffects != admissionregistrationv1.SideEffectClassNone:
		t.Errorf("failure policy %s, timeout %d, side effects %s", *w.FailurePolicy, *w.TimeoutSeconds, *w.SideEffects)
	case len(w.MatchConditions) != 1 || w.ObjectSelector != sel || w.NamespaceSelector != nil:
		t.Errorf("match conditions %v, selectors %v %v", w.MatchConditions, w.ObjectSelector, w.NamespaceSelector)
	case !reflect.DeepEqual(w.AdmissionReviewVersions, []string{"v1"}):
		t.Errorf("review versions %v", w.AdmissionReviewVersions)
	case w.ClientConfig.Service == nil || w.ClientConfig.Service.Name != "widgets-webhook" || w.ClientConfig.Service.Namespace != "widgets-system" ||
		*w.ClientConfig.Service.Path != "/validate-widgets" || *w.ClientConfig.Service.Port != 443 || w.ClientConfig.URL != nil ||
		string(w.ClientConfig.CABundle) != string(bundle):
		t.Errorf("client config %+v", w.ClientConfig)
	}
	pods := v[1]
	if pods.Name != "pods.example.com" || pods.Rules[0].APIGroups[0] != "" || pods.Rules[0].Resources[0] != "pods" ||
		!reflect.DeepEqual(pods.Rules[0].Operations, []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}) ||
		*pods.FailurePolicy != admissionregistrationv1.Fail || pods.TimeoutSeconds != nil || pods.NamespaceSelector != sel {
		t.Errorf("pods webhook %+v", pods)
	}
	m := cfgs.Mutating.Webhooks
	if len(m) != 1 || !reflect.DeepEqual(m[0].Rules[0].Resources, []string{"widgets", "widgets/status"}) || *m[0].ReinvocationPolicy != admissionregistrationv1.NeverReinvocationPolicy {
		t.Errorf("mutating webhooks %+v", m)
	}
	if len(cfgs.Conversions) != 1 || cfgs.Conversions[0].CRD != "widgets.example.com" || *cfgs.Conversions[0].ClientConfig.Service.Path != "/convert-widgets" {
		t.Errorf("conversions %+v", cfgs.Conversions)
	}

	byURL, err := set.Configurations(t.Context(), offlineClient(t), webhookconfig.Target{URL: "https://127.0.0.1:9443/"})
	if err != nil {
		t.Fatal(err)
	}
	if u := byURL.Validating.Webhooks[0].ClientConfig; u.URL == nil || *u.URL != "https://127.0.0.1:9443/validate-widgets" || u.Service != nil {
		t.Errorf("URL client config %+v", u)
	}
}

func TestConfigurationsRefuseWhatCannotWork(t *testing.T) {
	svc := webhookconfig.Target{Service: &admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc"}}
	for _, tc := range []struct {
		name   string
		set    func() *webhookconfig.Set
		target webhookconfig.Target
		want   error
	}{
		{"no webhooks", func() *webhookconfig.Set { return webhookconfig.NewSet("w", http.NewServeMux()) }, svc, webhookconfig.ErrInvalidWebhook},
		{"a Set name that is no object name", func() *webhookconfig.Set {
			s := webhookconfig.NewSet("Widgets!", http.NewServeMux())
			webhookconfig.Validate[Widget](s, "/v", allowWidgets, webhookconfig.Admission{})
			return s
		}, svc, webhookconfig.ErrInvalidWebhook},
		{"both a Service and a URL", oneWebhook, webhookconfig.Target{Service: svc.Service, URL: "https://x"}, webhookconfig.ErrInvalidWebhook},
		{"neither", oneWebhook, webhookconfig.Target{}, webhookconfig.ErrInvalidWebhook},
		{"a Service with a path", oneWebhook, webhookconfig.Target{Service: &admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Path: ptr("/x")}}, webhookconfig.ErrInvalidWebhook},
		{"a plain http URL", oneWebhook, webhookconfig.Target{URL: "http://x"}, webhookconfig.ErrInvalidWebhook},
		{"a path without a slash", func() *webhookconfig.Set {
			s := webhookconfig.NewSet("w", noMux{})
			webhookconfig.Validate[Widget](s, "v", allowWidgets, webhookconfig.Admission{})
			return s
		}, svc, webhookconfig.ErrInvalidWebhook},
		{"two webhooks of one name", func() *webhookconfig.Set {
			s := webhookconfig.NewSet("w", http.NewServeMux())
			webhookconfig.Validate[Widget](s, "/a", allowWidgets, webhookconfig.Admission{Name: "a.b.c"})
			webhookconfig.Default[Widget](s, "/b", noDefaults, webhookconfig.Admission{Name: "a.b.c"})
			return s
		}, svc, webhookconfig.ErrInvalidWebhook},
		{"a webhook name of two segments", func() *webhookconfig.Set {
			s := webhookconfig.NewSet("w", http.NewServeMux())
			webhookconfig.Validate[Widget](s, "/a", allowWidgets, webhookconfig.Admission{Name: "a.b"})
			return s
		}, svc, webhookconfig.ErrInvalidWebhook},
		{"a conversion webhook of a built-in kind", func() *webhookconfig.Set {
			s := webhookconfig.NewSet("w", http.NewServeMux())
			webhookconfig.Convert[corev1.Pod](s, "/c", conversion.New(conversion.Options{}))
			return s
		}, svc, webhookconfig.ErrInvalidWebhook},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.set().Configurations(t.Context(), offlineClient(t), tc.target); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}

	// A type the client cannot map fails with the client's error.
	s := webhookconfig.NewSet("w", http.NewServeMux())
	webhookconfig.Validate[unknownWidget](s, "/u", admission.ValidatorFuncs[*unknownWidget]{}, webhookconfig.Admission{})
	_, err := s.Configurations(t.Context(), offlineClient(t), svc)
	var unknown *client.UnknownTypeError
	if !errors.As(err, &unknown) {
		t.Fatalf("err = %v, want *client.UnknownTypeError", err)
	}
}

type unknownWidget struct{ Widget }

func (w *unknownWidget) DeepCopyObject() runtime.Object { return client.DeepCopy(w) }

func oneWebhook() *webhookconfig.Set {
	s := webhookconfig.NewSet("w", http.NewServeMux())
	webhookconfig.Validate[Widget](s, "/v", allowWidgets, webhookconfig.Admission{})
	return s
}

// noMux accepts any pattern, even one http.ServeMux would refuse.
type noMux struct{}

func (noMux) Handle(string, http.Handler) {}

func mustURL(t *testing.T, path string) *url.URL {
	t.Helper()
	u, err := url.Parse("https://host" + path)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func ptr[T any](v T) *T { return &v }
