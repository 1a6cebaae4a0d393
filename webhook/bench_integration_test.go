package webhook_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
	"github.com/kubego/kubego/webhook"
	"github.com/kubego/kubego/webhook/admission"
)

func createDryRun(ctx context.Context, rc *rest.Client, ns string) error {
	return rc.Post().Namespace(ns).Resource("configmaps").Param("dryRun", "All").
		Body([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bench"},"data":{"k":"v"}}`)).Do(ctx).Error()
}

// BenchmarkWebhookRoundTrip measures a dry-run ConfigMap create through
// kube-apiserver: without webhooks, with one validating webhook, and with
// a defaulting plus a validating one, kube-apiserver calling this process
// over HTTPS on loopback. The differences are the webhooks' cost.
func BenchmarkWebhookRoundTrip(b *testing.B) {
	f := newFixture(b, webhook.Options{})
	validate := admission.Validating[corev1.ConfigMap](admission.ValidatorFuncs[*corev1.ConfigMap]{}, admission.TypedOptions{})
	label := admission.Defaulting[corev1.ConfigMap](admission.DefaulterFunc[*corev1.ConfigMap](func(_ context.Context, cm *corev1.ConfigMap) error {
		if cm.Labels == nil {
			cm.Labels = map[string]string{}
		}
		cm.Labels["defaulted"] = "true"
		return nil
	}), admission.TypedOptions{})
	f.handle("/validate", admission.New(validate, admission.Options{Logger: f.logger()}))
	f.handle("/default", admission.New(label, admission.Options{Logger: f.logger()}))
	f.install(b, testenv.Webhooks{Name: "bench",
		Validating: []testenv.AdmissionWebhook{{Name: "validate.bench.kubego.test", Path: "/validate", Rules: configMapRules, NamespaceSelector: selectFault("bench-validate", "bench-both")}},
		Mutating:   []testenv.AdmissionWebhook{{Name: "default.bench.kubego.test", Path: "/default", Rules: configMapRules, NamespaceSelector: selectFault("bench-both")}},
	})
	ctx := context.Background()
	for _, bc := range []struct{ name, fault, path string }{
		{"none", "bench-none", ""},
		{"validating", "bench-validate", "/validate"},
		{"defaulting+validating", "bench-both", "/default"},
	} {
		ns := faultNamespace(b, f.rc, bc.fault)
		if bc.path != "" {
			eventually(b, "the webhook called", func() bool {
				createDryRun(ctx, f.rc, ns)
				return f.called(bc.path) > 0
			})
		}
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if err := createDryRun(ctx, f.rc, ns); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
