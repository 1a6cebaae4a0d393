package manager_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/manager"
)

// productionElection is leader election with the default durations (15 s
// leases, 10 s renew deadline, 2 s retry period), for tests that run in a
// synctest bubble where they cost no real time.
func productionElection(identity string) *leaderelection.Config {
	return &leaderelection.Config{
		Lock:     types.NamespacedName{Namespace: "le", Name: "lease"},
		Identity: identity,
	}
}

// A replica that dies without releasing its Lease is replaced once the
// Lease has expired: the other replica, waiting as a follower, takes it
// over and runs the controller, with production durations in fake time.
func TestLeaderHandOverAfterTheLeaderDiesWithProductionDurations(t *testing.T) {
	realStart := time.Now()
	synctest.Test(t, func(t *testing.T) {
		srv := fake.NewServer(fake.Options{}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "le"}}, deployment("apps", "web"))
		defer srv.Close()

		var mu sync.Mutex
		reconciledBy := map[string]int{}
		newReplica := func(identity string) *manager.Manager {
			mgr, err := manager.New(manager.Options{
				Config:         srv.InProcessConfig(),
				LeaderElection: productionElection(identity),
				Logger:         kubegotest.Logger(t, nil),
			})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := mgr.NewController(controller.Options{
				Name: "count",
				Reconciler: controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) {
					mu.Lock()
					defer mu.Unlock()
					reconciledBy[identity]++
					return controller.Result{}, nil
				}),
				Sources: []controller.Source{controller.For[*appsv1.Deployment]{}},
			}); err != nil {
				t.Fatal(err)
			}
			return mgr
		}

		first, second := newReplica("first"), newReplica("second")
		run1 := kubegotest.Start(t, first)
		<-first.Elected()
		kubegotest.Start(t, second)
		// Minutes of leading: the leader renews every RetryPeriod and the
		// follower keeps waiting.
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		if !first.IsLeader() || second.IsLeader() {
			t.Fatalf("after 5 minutes: first leads %v, second leads %v; want only first", first.IsLeader(), second.IsLeader())
		}

		// The leader dies: it stops without releasing the Lease.
		died := time.Now()
		if err := run1.Stop(); err != nil {
			t.Fatalf("first replica: %v", err)
		}
		<-second.Elected()
		took := time.Since(died)
		// Fake time: these bounds are exact arithmetic on the durations,
		// not a race with a loaded machine.
		lease, retry := leaderelection.DefaultLeaseDuration, leaderelection.DefaultRetryPeriod
		if took < lease-retry || took > lease+3*retry {
			t.Errorf("second replica elected %s after the leader died, want about the lease duration %s", took, lease)
		}
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if reconciledBy["first"] != 1 || reconciledBy["second"] != 1 {
			t.Errorf("reconciles by replica %v, want the deployment reconciled once by each leader", reconciledBy)
		}
	})
	t.Logf("real time taken: %s", time.Since(realStart))
}
