package manager_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/manager"
)

// A leader whose lease is taken away stops acting at once: the reconcile
// in flight sees its context cancelled (no drain), and Start returns
// leaderelection.ErrLeaseLost. Production durations, in fake time.
func TestLosingLeadershipCancelsReconcilesAndStopsTheManager(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := fake.NewServer(fake.Options{}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "le"}}, deployment("apps", "web"))
		defer srv.Close()
		mgr, err := manager.New(manager.Options{
			Config:         srv.InProcessConfig(),
			LeaderElection: productionElection("me"),
		})
		if err != nil {
			t.Fatal(err)
		}
		inFlight := make(chan struct{})
		cancelled := make(chan time.Time, 1)
		_, err = mgr.NewController(controller.Options{
			Name: "blocker",
			Reconciler: controller.ReconcilerFunc(func(ctx context.Context, _ controller.Request) (controller.Result, error) {
				close(inFlight)
				<-ctx.Done()
				cancelled <- time.Now()
				return controller.Result{}, ctx.Err()
			}),
			DrainTimeout: time.Hour, // must not apply to a lost leadership
			Sources:      []controller.Source{controller.For[*appsv1.Deployment]{}},
		})
		if err != nil {
			t.Fatal(err)
		}
		run := kubegotest.Start(t, mgr)
		<-inFlight
		if !mgr.IsLeader() {
			t.Fatal("running a leader-only controller without leading")
		}
		if v := gauge(t, mgr, "leader_election_master_status"); v != 1 {
			t.Errorf("leader_election_master_status = %v while leading", v)
		}

		// Another candidate takes the lease over.
		lock := productionElection("me").Lock
		leases := client.Typed[*coordinationv1.Lease](mgr.Client()).Namespace(lock.Namespace)
		l, err := leases.Get(t.Context(), lock.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		other := "someone-else"
		l.Spec.HolderIdentity = &other
		start := time.Now()
		if _, err := leases.Update(t.Context(), l, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		// Fake time: the leader sees the change at its next renewal, one
		// RetryPeriod at most, and cancels at once, not after DrainTimeout.
		at := <-cancelled
		if d := at.Sub(start); d > leaderelection.DefaultRetryPeriod {
			t.Errorf("the reconcile was cancelled %s after the loss, want within one retry period", d)
		}
		<-run.Done()
		err = run.Err()
		if !errors.Is(err, leaderelection.ErrLeaseLost) {
			t.Fatalf("Start = %v, want leaderelection.ErrLeaseLost", err)
		}
		var lost *leaderelection.LostError
		if !errors.As(err, &lost) {
			t.Fatalf("Start = %v, want a *leaderelection.LostError inside", err)
		}
		if mgr.IsLeader() {
			t.Error("IsLeader after the loss")
		}
		if v := gauge(t, mgr, "leader_election_master_status"); v != 0 {
			t.Errorf("leader_election_master_status = %v after the loss", v)
		}
	})
}

// gauge returns the value of the one series of a gauge in mgr's registry.
func gauge(t *testing.T, mgr *manager.Manager, name string) float64 {
	t.Helper()
	families, err := mgr.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name && len(f.GetMetric()) == 1 {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no single series %s", name)
	return 0
}
