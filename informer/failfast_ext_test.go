package informer_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/informer/informertest"
)

// Through a Factory and the in-memory Tracker: permanent failures end
// Factory.WaitForSync early, per informer, while a healthy informer syncs.
func TestFactoryWaitForSyncFailsFast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cms := informertest.New[*corev1.ConfigMap](informertest.Options{Resource: "configmaps"})
		cms.Create(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
		src := &informertest.Backend{}
		informertest.Serve(src, cms, informer.Typed, schema.GroupVersionResource{})
		cms.FailNextList(apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("no grant")))
		f := informer.NewFactory(src, informer.FactoryOptions{Reflector: informer.ReflectorOptions{DisableStreaming: true}})
		healthy := mustAcquire(informer.Acquire[*corev1.ConfigMap](f, informer.SharedOptions{Namespace: "ns"}))
		missing := mustAcquire(informer.AcquireResource(f, schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}, informer.SharedOptions{}))
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		f.Start(ctx)
		t0 := time.Now()
		err := f.WaitForSync(ctx)
		var se *informer.SyncError
		if !errors.As(err, &se) || !se.Permanent || !apierrors.IsNotFound(se) || se.Informer != missing.Name() {
			t.Fatalf("WaitForSync = %v, want a permanent NotFound for %s", err, missing.Name())
		}
		if took := time.Since(t0); took > 10*time.Second {
			t.Errorf("WaitForSync took %v, want a few backoffs", took)
		}
		if !healthy.HasSynced() {
			t.Error("the ConfigMap informer (one 403, then allowed) did not sync")
		}
		cancel()
		f.Wait()
	})
}
