package webhook_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
	"github.com/kubego/kubego/webhook"
	"github.com/kubego/kubego/webhook/admission"
)

var nsSeq atomic.Int64

// faultNamespace creates a namespace labelled kubego-fault=<fault> and
// deletes it at cleanup; webhooks select it by that label.
func faultNamespace(t testing.TB, rc *rest.Client, fault string) string {
	t.Helper()
	name := fmt.Sprintf("fault-%s-%d-%d", fault, time.Now().UnixNano()%100000, nsSeq.Add(1))
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q,"labels":{"kubego-fault":%q}}}`, name, fault)
	if err := rc.Post().Resource("namespaces").Body([]byte(body)).Do(t.Context()).Error(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.Delete().Resource("namespaces").Name(name).Do(context.Background()) })
	return name
}

// selectFault selects the namespaces labelled with one of faults.
func selectFault(faults ...string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "kubego-fault", Operator: metav1.LabelSelectorOpIn, Values: faults},
	}}
}

var configMapRules = []admissionregistrationv1.RuleWithOperations{{
	Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
	Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
}}

var cmSeq atomic.Int64

// createConfigMap creates a config map with data of size bytes in ns.
func createConfigMap(ctx context.Context, rc *rest.Client, ns string, size int) error {
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%d"},"data":{"d":%q}}`, cmSeq.Add(1), strings.Repeat("x", size))
	return rc.Post().Namespace(ns).Resource("configmaps").Body([]byte(body)).Do(ctx).Error()
}

// Each fault, as kube-apiserver reports it to the client: a handler
// panic and an oversized body are refused with the server's message, a
// handler slower than timeoutSeconds fails the request under
// failurePolicy Fail and is skipped under Ignore, and so is a stopped
// server. A malformed review, sent directly, gets a 400 saying why.
func TestIntegrationFaults(t *testing.T) {
	f := newFixture(t, webhook.Options{MaxBodyBytes: 32 << 10, RequestTimeout: 5 * time.Second})
	allow := admission.New(admission.HandlerFunc(func(context.Context, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return admission.Allowed()
	}), admission.Options{Logger: f.logger()})
	f.handle("/panic", admission.New(admission.HandlerFunc(func(context.Context, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		var m map[string]int
		m["boom"]++
		return admission.Allowed()
	}), admission.Options{Logger: f.logger()}))
	slow := admission.New(admission.HandlerFunc(func(ctx context.Context, _ *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		<-ctx.Done()
		return admission.Allowed()
	}), admission.Options{Logger: f.logger()})
	f.handle("/slow-fail", slow)
	f.handle("/slow-ignore", slow)
	f.handle("/big", allow)
	f.handle("/big-ignore", allow)
	hook := func(name, path string, fp admissionregistrationv1.FailurePolicyType, timeout int32) testenv.AdmissionWebhook {
		return testenv.AdmissionWebhook{Name: name + ".faults.kubego.test", Path: path, Rules: configMapRules, FailurePolicy: fp, TimeoutSeconds: timeout, NamespaceSelector: selectFault(name)}
	}
	f.install(t, testenv.Webhooks{Name: "faults", Validating: []testenv.AdmissionWebhook{
		hook("panic", "/panic", admissionregistrationv1.Fail, 0),
		hook("slow-fail", "/slow-fail", admissionregistrationv1.Fail, 1),
		hook("slow-ignore", "/slow-ignore", admissionregistrationv1.Ignore, 1),
		hook("big", "/big", admissionregistrationv1.Fail, 0),
		hook("big-ignore", "/big-ignore", admissionregistrationv1.Ignore, 0),
	}})
	ctx := t.Context()

	t.Run("a handler panic is refused with its message and the server lives on", func(t *testing.T) {
		ns := faultNamespace(t, f.rc, "panic")
		var err error
		eventually(t, "the panic webhook called", func() bool {
			err = createConfigMap(ctx, f.rc, ns, 1)
			return f.called("/panic") > 0
		})
		if !contains(statusMessage(err), `admission webhook "panic.faults.kubego.test" denied the request: admission webhook handler panicked: assignment to entry in nil map`) {
			t.Fatalf("err = %v", err)
		}
		t.Logf("kube-apiserver: %v", err)
		if err := createConfigMap(ctx, f.rc, ns, 1); !contains(statusMessage(err), "panicked") {
			t.Fatalf("second call: err = %v, want the same refusal", err)
		}
	})
	t.Run("a slow handler under failurePolicy Fail fails the request", func(t *testing.T) {
		ns := faultNamespace(t, f.rc, "slow-fail")
		var err error
		eventually(t, "the slow webhook called", func() bool {
			err = createConfigMap(ctx, f.rc, ns, 1)
			return f.called("/slow-fail") > 0
		})
		if msg := statusMessage(err); !contains(msg, `failed calling webhook "slow-fail.faults.kubego.test"`) || !contains(msg, "deadline exceeded") {
			t.Fatalf("err = %v, want a failed call for its deadline", err)
		}
		t.Logf("kube-apiserver: %v", err)
	})
	t.Run("a slow handler under failurePolicy Ignore is skipped", func(t *testing.T) {
		ns := faultNamespace(t, f.rc, "slow-ignore")
		eventually(t, "the slow webhook called", func() bool {
			err := createConfigMap(ctx, f.rc, ns, 1)
			if err != nil {
				t.Fatalf("create under Ignore: %v", err)
			}
			return f.called("/slow-ignore") > 0
		})
	})
	t.Run("an oversized review is refused with the limit", func(t *testing.T) {
		ns := faultNamespace(t, f.rc, "big")
		eventually(t, "the webhook called", func() bool {
			createConfigMap(ctx, f.rc, ns, 1)
			return f.called("/big") > 0
		})
		err := createConfigMap(ctx, f.rc, ns, 64<<10)
		if msg := statusMessage(err); !contains(msg, `failed calling webhook "big.faults.kubego.test"`) || !contains(msg, "exceeds the webhook server's limit of 32768 bytes") {
			t.Fatalf("err = %v, want a failed call naming the limit", err)
		}
		t.Logf("kube-apiserver: %v", err)
		if err := createConfigMap(ctx, f.rc, ns, 1); err != nil {
			t.Fatalf("a small one after: %v", err)
		}
	})
	t.Run("an oversized review under failurePolicy Ignore is admitted", func(t *testing.T) {
		ns := faultNamespace(t, f.rc, "big-ignore")
		eventually(t, "the webhook called", func() bool {
			createConfigMap(ctx, f.rc, ns, 1)
			return f.called("/big-ignore") > 0
		})
		before := f.called("/big-ignore")
		if err := createConfigMap(ctx, f.rc, ns, 64<<10); err != nil {
			t.Fatalf("create under Ignore: %v", err)
		}
		if f.called("/big-ignore") == before {
			t.Fatal("kube-apiserver did not call the webhook")
		}
	})
	t.Run("a malformed review gets a 400 saying why", func(t *testing.T) {
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: f.tls.pool()}}}
		resp, err := c.Post(f.url+"/big", "application/json", strings.NewReader(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !contains(string(body), "decoding AdmissionReview") {
			t.Fatalf("got %d %s", resp.StatusCode, body)
		}
	})
}

// A stopped webhook server: failurePolicy Fail refuses the request,
// Ignore lets it through.
func TestIntegrationStoppedServer(t *testing.T) {
	f := newFixture(t, webhook.Options{})
	allow := admission.New(admission.HandlerFunc(func(context.Context, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return admission.Allowed()
	}), admission.Options{Logger: f.logger()})
	f.handle("/fail", allow)
	f.handle("/ignore", allow)
	f.install(t, testenv.Webhooks{Name: "stopped", Validating: []testenv.AdmissionWebhook{
		{Name: "fail.stopped.kubego.test", Path: "/fail", Rules: configMapRules, FailurePolicy: admissionregistrationv1.Fail, NamespaceSelector: selectFault("stopped-fail")},
		{Name: "ignore.stopped.kubego.test", Path: "/ignore", Rules: configMapRules, FailurePolicy: admissionregistrationv1.Ignore, NamespaceSelector: selectFault("stopped-ignore")},
	}})
	ctx := t.Context()
	nsFail, nsIgnore := faultNamespace(t, f.rc, "stopped-fail"), faultNamespace(t, f.rc, "stopped-ignore")
	eventually(t, "both webhooks called", func() bool {
		if err := createConfigMap(ctx, f.rc, nsFail, 1); err != nil {
			t.Fatalf("while serving: %v", err)
		}
		if err := createConfigMap(ctx, f.rc, nsIgnore, 1); err != nil {
			t.Fatalf("while serving: %v", err)
		}
		return f.called("/fail") > 0 && f.called("/ignore") > 0
	})
	f.stop()
	err := createConfigMap(ctx, f.rc, nsFail, 1)
	if msg := statusMessage(err); !contains(msg, `failed calling webhook "fail.stopped.kubego.test"`) || !contains(msg, "connection refused") {
		t.Fatalf("Fail: err = %v, want a failed call, connection refused", err)
	}
	t.Logf("kube-apiserver: %v", err)
	if err := createConfigMap(ctx, f.rc, nsIgnore, 1); err != nil {
		t.Fatalf("Ignore: %v", err)
	}
}
