package informer_test

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/testenv"
)

// nobodyToken authenticates a user with no RBAC grants on the shared plane
// (see TestMain).
const nobodyToken = "informer-test-nobody-token"

// WaitForSync does not wait for its context when the server keeps saying
// no: a user without RBAC grants gets 403 Forbidden, a resource that is not
// served gets 404 NotFound, both within a few seconds.
func TestIntegrationWaitForSyncFailsFast(t *testing.T) {
	cp := testenv.Shared(t)
	for _, c := range []struct {
		name  string
		token string // "" = admin
		gvr   schema.GroupVersionResource
		is    func(error) bool
	}{
		{"forbidden for a user without grants", nobodyToken, schema.GroupVersionResource{}, apierrors.IsForbidden},
		{"not found for a CRD that is not installed", "", schema.GroupVersionResource{Group: "not-installed.example.com", Version: "v1", Resource: "gadgets"}, apierrors.IsNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := cp.Config()
			if c.token != "" {
				cfg = cp.TokenConfig(c.token)
			}
			f := informer.NewFactory(newClient(t, cfg), informer.FactoryOptions{})
			var inf interface{ WaitForSync(context.Context) error }
			if c.gvr.Empty() {
				inf = mustAcquire(informer.Acquire[*corev1.ConfigMap](f, informer.SharedOptions{Namespace: "default"}))
			} else {
				inf = mustAcquire(informer.AcquireResource(f, c.gvr, informer.SharedOptions{Namespace: "default"}))
			}
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			f.Start(ctx)
			t0 := time.Now()
			err := inf.WaitForSync(ctx)
			took := time.Since(t0)
			var se *informer.SyncError
			if !errors.As(err, &se) || !se.Permanent || !c.is(err) || ctx.Err() != nil {
				t.Fatalf("WaitForSync = %v (after %v), want an early permanent SyncError of the right kind", err, took)
			}
			t.Logf("WaitForSync returned after %v: %v", took, err)
			if took > 10*time.Second {
				t.Errorf("WaitForSync took %v, want a few seconds at most", took)
			}
			// The factory's WaitForSync reports the same.
			if err := f.WaitForSync(ctx); !c.is(err) {
				t.Errorf("Factory.WaitForSync = %v", err)
			}
			cancel()
			f.Wait()
		})
	}
}
