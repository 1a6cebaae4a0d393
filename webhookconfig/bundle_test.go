package webhookconfig_test

import (
	"context"
	"encoding/base64"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/certs"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/webhookconfig"
)

// source is a BundleSource the test changes.
type source struct {
	mu      sync.Mutex
	bundle  []byte
	changed chan struct{}
}

func newSource(b []byte) *source { return &source{bundle: b, changed: make(chan struct{})} }

func (s *source) Bundle() ([]byte, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bundle, s.changed
}

func (s *source) set(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bundle = b
	close(s.changed)
	s.changed = make(chan struct{})
}

func caPEM(t *testing.T) []byte {
	t.Helper()
	ca, err := certs.NewCA(certs.CAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ca.CertPEM
}

var crdResource = client.Mapping{
	Resource: schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
	Kind:     schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"},
}

// installObjects creates a mutating and a validating configuration (named
// "widgets", two webhooks each) and the CRD widgets.example.com with a
// conversion webhook, all trusting old.
func installObjects(t *testing.T, c *client.Client, old []byte) {
	t.Helper()
	ctx := t.Context()
	url, none := "https://127.0.0.1:9443/x", admissionregistrationv1.SideEffectClassNone
	cc := admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: old}
	rules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v1"}, Resources: []string{"gadgets"}},
	}}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "widgets"}}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "widgets"}}
	for _, name := range []string{"a.widgets.example.com", "b.widgets.example.com"} {
		m.Webhooks = append(m.Webhooks, admissionregistrationv1.MutatingWebhook{Name: name, ClientConfig: cc, Rules: rules, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}})
		v.Webhooks = append(v.Webhooks, admissionregistrationv1.ValidatingWebhook{Name: name, ClientConfig: cc, Rules: rules, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}})
	}
	if _, err := client.Typed[*admissionregistrationv1.MutatingWebhookConfiguration](c).Create(ctx, m, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Typed[*admissionregistrationv1.ValidatingWebhookConfiguration](c).Create(ctx, v, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	schemaOf := map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{
			"group": "example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{
				map[string]any{"name": "v1", "served": true, "storage": true, "schema": schemaOf},
				map[string]any{"name": "v2", "served": true, "storage": false, "schema": schemaOf},
			},
			"conversion": map[string]any{"strategy": "Webhook", "webhook": map[string]any{
				"conversionReviewVersions": []any{"v1"},
				"clientConfig":             map[string]any{"url": url, "caBundle": old},
			}},
		},
	}}
	if _, err := client.TypedMapping[*unstructured.Unstructured](c, crdResource).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// bundles returns the caBundle of every webhook of the configurations and
// of the CRD's conversion webhook, and the objects' resourceVersions.
func bundles(t *testing.T, c *client.Client) (got []string, rvs []string) {
	t.Helper()
	ctx := t.Context()
	m, err := client.Typed[*admissionregistrationv1.MutatingWebhookConfiguration](c).Get(ctx, "widgets", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := client.Typed[*admissionregistrationv1.ValidatingWebhookConfiguration](c).Get(ctx, "widgets", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crd, err := client.TypedMapping[*unstructured.Unstructured](c, crdResource).Get(ctx, "widgets.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range m.Webhooks {
		got = append(got, string(w.ClientConfig.CABundle))
	}
	for _, w := range v.Webhooks {
		got = append(got, string(w.ClientConfig.CABundle))
	}
	b64, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle")
	got = append(got, b64)
	return got, []string{m.ResourceVersion, v.ResourceVersion, crd.GetResourceVersion()}
}

func allEqual(t *testing.T, got []string, want []byte, b64 string) {
	t.Helper()
	for i, g := range got[:len(got)-1] {
		if g != string(want) {
			t.Fatalf("webhook %d trusts %q, want the new bundle", i, g)
		}
	}
	if got[len(got)-1] != b64 {
		t.Fatal("the CRD's conversion webhook does not trust the new bundle")
	}
}

// Sync patches every caBundle that differs and writes nothing when all
// are equal; objects that do not exist are skipped.
func TestSyncPatchesOnlyWhatDiffers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newFake(t)
		old, next := caPEM(t), caPEM(t)
		installObjects(t, c, old)
		u, err := webhookconfig.NewBundleUpdater(c, newSource(next), webhookconfig.BundleOptions{
			Mutating: []string{"widgets", "absent"}, Validating: []string{"widgets"}, CRDs: []string{"widgets.example.com", "gadgets.example.com"},
			Logger: quiet(),
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := u.Sync(t.Context(), next); err != nil {
			t.Fatal(err)
		}
		got, rvs := bundles(t, c)
		allEqual(t, got, next, b64(next))
		if err := u.Sync(t.Context(), next); err != nil {
			t.Fatal(err)
		}
		if _, again := bundles(t, c); !equal(again, rvs) {
			t.Fatalf("a Sync with nothing to change wrote: resourceVersions %v, then %v", rvs, again)
		}
	})
}

// Started, the updater follows its source's changes, and puts back a
// caBundle someone else changed at the next Resync.
func TestUpdaterFollowsTheBundle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newFake(t)
		first := caPEM(t)
		installObjects(t, c, nil)
		src := newSource(first)
		u, err := webhookconfig.NewBundleUpdater(c, src, webhookconfig.BundleOptions{
			Mutating: []string{"widgets"}, Validating: []string{"widgets"}, CRDs: []string{"widgets.example.com"}, Logger: quiet(),
		})
		if err != nil {
			t.Fatal(err)
		}
		kubegotest.Start(t, u)
		synctest.Wait()
		got, _ := bundles(t, c)
		allEqual(t, got, first, b64(first))

		second := append(append([]byte(nil), first...), caPEM(t)...)
		src.set(second)
		synctest.Wait()
		got, _ = bundles(t, c)
		allEqual(t, got, second, b64(second))

		// Someone empties a caBundle: put back within a Resync.
		patch := []byte(`[{"op":"remove","path":"/webhooks/1/clientConfig/caBundle"}]`)
		if _, err := client.Typed[*admissionregistrationv1.ValidatingWebhookConfiguration](c).Patch(t.Context(), "widgets", "application/json-patch+json", patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(webhookconfig.DefaultResync)
		synctest.Wait()
		got, _ = bundles(t, c)
		allEqual(t, got, second, b64(second))

		if err := u.Start(context.Background()); !errors.Is(err, webhookconfig.ErrAlreadyStarted) {
			t.Fatalf("second Start = %v, want ErrAlreadyStarted", err)
		}
	})
}

func TestBundleOptionsAreChecked(t *testing.T) {
	c := offlineClient(t)
	for name, tc := range map[string]struct {
		src  webhookconfig.BundleSource
		opts webhookconfig.BundleOptions
	}{
		"no source":       {nil, webhookconfig.BundleOptions{CRDs: []string{"x"}}},
		"nothing to keep": {newSource(nil), webhookconfig.BundleOptions{}},
		"negative resync": {newSource(nil), webhookconfig.BundleOptions{CRDs: []string{"x"}, Resync: -time.Second}},
	} {
		if _, err := webhookconfig.NewBundleUpdater(c, tc.src, tc.opts); !errors.Is(err, webhookconfig.ErrInvalidOptions) {
			t.Errorf("%s: err = %v, want ErrInvalidOptions", name, err)
		}
	}
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// A patch that fails is retried with backoff, well before the next Resync.
func TestUpdaterRetriesFailedPatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := newFakeServer(t)
		installObjects(t, c, nil)
		srv.FailNext(fake.Match{Verb: "patch", Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"}, 2, metav1.Status{Code: 500, Reason: metav1.StatusReasonInternalError, Message: "injected"})
		bundle := caPEM(t)
		u, err := webhookconfig.NewBundleUpdater(c, newSource(bundle), webhookconfig.BundleOptions{Mutating: []string{"widgets"}, Logger: quiet()})
		if err != nil {
			t.Fatal(err)
		}
		kubegotest.Start(t, u)
		time.Sleep(5 * time.Second) // the backoff of two failures, far below DefaultResync
		synctest.Wait()
		m, err := client.Typed[*admissionregistrationv1.MutatingWebhookConfiguration](c).Get(t.Context(), "widgets", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range m.Webhooks {
			if string(w.ClientConfig.CABundle) != string(bundle) {
				t.Fatalf("webhook %s trusts %q after the failures, want the bundle", w.Name, w.ClientConfig.CABundle)
			}
		}
	})
}
