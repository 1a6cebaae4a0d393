package testenv

import (
	"context"
	"errors"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

func TestWebhookRegistrationsThatCannotWorkAreRefusedBeforeAnyRequest(t *testing.T) {
	rule := []admissionregistrationv1.RuleWithOperations{{Rule: admissionregistrationv1.Rule{APIGroups: []string{"x"}}}}
	good := AdmissionWebhook{Name: "v.x.test", Path: "/v", Rules: rule}
	for _, tc := range []struct {
		name string
		w    Webhooks
	}{
		{"no name", Webhooks{URL: "https://127.0.0.1:1", CABundle: []byte("ca"), Validating: []AdmissionWebhook{good}}},
		{"plain http", Webhooks{Name: "n", URL: "http://127.0.0.1:1", CABundle: []byte("ca"), Validating: []AdmissionWebhook{good}}},
		{"no CA bundle", Webhooks{Name: "n", URL: "https://127.0.0.1:1", Validating: []AdmissionWebhook{good}}},
		{"no webhooks", Webhooks{Name: "n", URL: "https://127.0.0.1:1", CABundle: []byte("ca")}},
		{"a webhook without a path", Webhooks{Name: "n", URL: "https://127.0.0.1:1", CABundle: []byte("ca"),
			Mutating: []AdmissionWebhook{{Name: "m.x.test", Rules: rule}}}},
		{"a webhook without rules", Webhooks{Name: "n", URL: "https://127.0.0.1:1", CABundle: []byte("ca"),
			Validating: []AdmissionWebhook{{Name: "v.x.test", Path: "/v"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A control plane that was never started: validation comes first.
			err := (&ControlPlane{}).InstallWebhooks(context.Background(), tc.w)
			if !errors.Is(err, ErrInvalidWebhook) {
				t.Fatalf("err = %v, want ErrInvalidWebhook", err)
			}
		})
	}
	if err := (&ControlPlane{}).InstallConversionWebhook(context.Background(), "widgets.x", "http://127.0.0.1:1/c", []byte("ca")); !errors.Is(err, ErrInvalidWebhook) {
		t.Fatalf("conversion over plain http: err = %v, want ErrInvalidWebhook", err)
	}
}

func TestWebhookDefaultsAreFailAndNoSideEffects(t *testing.T) {
	fp, timeout, se := AdmissionWebhook{}.common()
	if *fp != admissionregistrationv1.Fail || timeout != nil || *se != admissionregistrationv1.SideEffectClassNone {
		t.Fatalf("defaults: failurePolicy %s, timeout %v, sideEffects %s", *fp, timeout, *se)
	}
	fp, timeout, _ = AdmissionWebhook{FailurePolicy: admissionregistrationv1.Ignore, TimeoutSeconds: 3}.common()
	if *fp != admissionregistrationv1.Ignore || *timeout != 3 {
		t.Fatalf("explicit: failurePolicy %s, timeout %d", *fp, *timeout)
	}
}
