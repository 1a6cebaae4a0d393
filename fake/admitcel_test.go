package fake_test

import (
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWebhookMatchConditions(t *testing.T) {
	ignore, fail := admissionregistrationv1.Ignore, admissionregistrationv1.Fail
	tests := []struct {
		name       string
		conditions []string
		policy     *admissionregistrationv1.FailurePolicyType
		cm         *corev1.ConfigMap
		called     bool
		code       int32 // of the write's error; 0 for success
		message    string
	}{
		{"all true: called", []string{"object.metadata.name.startsWith('a')", "request.operation == 'CREATE'"}, nil,
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "abc"}}, true, 0, ""},
		{"one false: not called", []string{"object.metadata.name.startsWith('a')", "oldObject == null && request.namespace == 'default'"}, nil,
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bcd"}}, false, 0, ""},
		{"false beats an error", []string{"object.metadata.labels['x'] == 'y'", "false"}, &fail,
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, false, 0, ""},
		{"error under Fail: forbidden", []string{"object.metadata.labels['x'] == 'y'"}, &fail,
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "d"}}, false, http.StatusForbidden,
			`configmaps "d" is forbidden: expression 'object.metadata.labels['x'] == 'y'' resulted in error: no such key: labels`},
		{"error under Ignore: not called", []string{"object.metadata.labels['x'] == 'y'"}, &ignore,
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "e"}}, false, 0, ""},
		{"hostile condition stops at its cost limit", []string{"[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a+b+c+d+e+f > 0))))))"}, &fail,
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "f"}}, false, http.StatusForbidden, "cost limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var calls atomic.Int64
				f := newHookFixture(t, map[string]http.Handler{"https://hooks.test/label": labelDefaulter(&calls, "called", "yes")})
				f.register(&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "m"},
					Webhooks: []admissionregistrationv1.MutatingWebhook{mutatingHook("label.hooks.test", "https://hooks.test/label", func(h *admissionregistrationv1.MutatingWebhook) {
						for i, c := range tt.conditions {
							h.MatchConditions = append(h.MatchConditions, admissionregistrationv1.MatchCondition{Name: "c" + string(rune('0'+i)), Expression: c})
						}
						h.FailurePolicy = tt.policy
					})}}, "mutatingwebhookconfigurations")
				out, err := f.createConfigMap(tt.cm)
				if tt.code != 0 {
					var se *apierrors.StatusError
					if !errors.As(err, &se) || se.ErrStatus.Code != tt.code || !strings.Contains(se.ErrStatus.Message, tt.message) {
						t.Fatalf("got %v, want %d with %q", err, tt.code, tt.message)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if got := calls.Load() == 1 && out.Labels["called"] == "yes"; got != tt.called {
					t.Errorf("webhook called: %v, want %v", got, tt.called)
				}
			})
		})
	}
}

func TestWebhookMatchConditionThatDoesNotCompileIsInvalid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newHookFixture(t, nil)
		cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{validatingHook("cel.hooks.test", "https://hooks.test/ok", func(h *admissionregistrationv1.ValidatingWebhook) {
				h.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "ok", Expression: "true"}, {Name: "bad", Expression: "object.("}}
			})}}
		err := f.c.Post().Group("admissionregistration.k8s.io").Version("v1").Resource("validatingwebhookconfigurations").Body(cfg).Do(t.Context()).Error()
		var se *apierrors.StatusError
		if !errors.As(err, &se) || se.ErrStatus.Code != http.StatusUnprocessableEntity || se.ErrStatus.Details == nil || len(se.ErrStatus.Details.Causes) != 1 ||
			se.ErrStatus.Details.Causes[0].Field != "webhooks[0].matchConditions[1].expression" || !strings.Contains(se.ErrStatus.Details.Causes[0].Message, "compilation failed") {
			t.Fatalf("got %v, want 422 at webhooks[0].matchConditions[1].expression", err)
		}
	})
}

func TestMutatingWebhookMatchConditionsSeeEarlierWebhooksChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var first, second atomic.Int64
		f := newHookFixture(t, map[string]http.Handler{
			"https://hooks.test/first":  labelDefaulter(&first, "stage", "one"),
			"https://hooks.test/second": labelDefaulter(&second, "second", "yes"),
		})
		f.register(&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "m"},
			Webhooks: []admissionregistrationv1.MutatingWebhook{
				mutatingHook("first.hooks.test", "https://hooks.test/first", nil),
				// Matches only once the first webhook has labelled the object.
				mutatingHook("second.hooks.test", "https://hooks.test/second", func(h *admissionregistrationv1.MutatingWebhook) {
					h.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "labelled", Expression: "has(object.metadata.labels) && 'stage' in object.metadata.labels"}}
				}),
			}}, "mutatingwebhookconfigurations")
		out, err := f.createConfigMap(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}})
		if err != nil {
			t.Fatal(err)
		}
		if first.Load() != 1 || second.Load() != 1 || out.Labels["second"] != "yes" {
			t.Errorf("calls %d and %d, labels %v; want each webhook called once, the second's label set", first.Load(), second.Load(), out.Labels)
		}
	})
}
