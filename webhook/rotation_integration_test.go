package webhook_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/kubego/kubego/testenv"
	"github.com/kubego/kubego/webhook"
	"github.com/kubego/kubego/webhook/admission"
)

// Certificates rotated while kube-apiserver keeps calling the webhook: no
// request fails, and each new connection gets the newest certificate.
func TestIntegrationCertificateRotationUnderTraffic(t *testing.T) {
	f := newFixture(t, webhook.Options{})
	f.handle("/validate", admission.New(admission.HandlerFunc(func(context.Context, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return admission.Allowed()
	}), admission.Options{Logger: f.logger()}))
	f.install(t, testenv.Webhooks{Name: "rotation", Validating: []testenv.AdmissionWebhook{
		{Name: "rotation.kubego.test", Path: "/validate", Rules: configMapRules, NamespaceSelector: selectFault("rotation")},
	}})
	ctx := t.Context()
	ns := faultNamespace(t, f.rc, "rotation")
	eventually(t, "the webhook called", func() bool {
		createConfigMap(ctx, f.rc, ns, 1)
		return f.called("/validate") > 0
	})

	trafficCtx, stopTraffic := context.WithCancel(ctx)
	var (
		wg       sync.WaitGroup
		ok, fail atomic.Int64
		mu       sync.Mutex
		firstErr error
	)
	for range 2 {
		wg.Go(func() {
			for trafficCtx.Err() == nil {
				err := f.rc.Post().Namespace(ns).Resource("configmaps").Param("dryRun", "All").
					Body([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"t-"}}`)).Do(trafficCtx).Error()
				switch {
				case err == nil:
					ok.Add(1)
				case trafficCtx.Err() == nil:
					fail.Add(1)
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		})
	}
	// waitCalls waits until the webhook has answered n more requests.
	waitCalls := func(n int64) {
		target := f.called("/validate") + n
		eventually(t, "more webhook calls", func() bool { return f.called("/validate") >= target })
	}
	waitCalls(20)
	for range 3 {
		serial := f.tls.rotate(t)
		waitCalls(20)
		if got := servedSerial(t, f.tls, f.url); got != serial {
			t.Fatalf("a new connection got serial %s, want the rotated %s", got, serial)
		}
	}
	stopTraffic()
	wg.Wait()
	if fail.Load() > 0 {
		t.Fatalf("%d of %d requests failed across rotations; first: %v", fail.Load(), ok.Load()+fail.Load(), firstErr)
	}
	t.Logf("%d requests through kube-apiserver and the webhook across 3 rotations, none failed", ok.Load())
}
