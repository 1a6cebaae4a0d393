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

// handOverCase is how the leader goes and how soon the follower may take
// over: a leader that dies leaves its Lease to expire; one that stops
// with ReleaseOnCancel hands it over at the follower's next try.
type handOverCase struct {
	name             string
	release          bool
	earliest, latest time.Duration // after the leader stopped
}

var handOverCases = []handOverCase{
	// The follower watches the Lease, so it sees the last renewal when it
	// is written (at most one RetryPeriod before the stop) and takes over
	// LeaseDuration after it.
	{"a leader that dies is replaced once its lease expires", false,
		leaderelection.DefaultLeaseDuration - leaderelection.DefaultRetryPeriod, leaderelection.DefaultLeaseDuration},
	// The follower sees the release on its watch and takes over at once,
	// not at its next read one RetryPeriod later.
	{"a leader that releases its lease is replaced at once", true,
		0, 0},
}

// Two replicas with production durations, in fake time: the follower
// takes the Lease over when the leader goes, as soon as the way it went
// allows, and runs the controller.
func TestLeaderHandOverWithProductionDurations(t *testing.T) {
	for _, tc := range handOverCases {
		t.Run(tc.name, func(t *testing.T) {
			realStart := time.Now()
			synctest.Test(t, func(t *testing.T) { handOver(t, tc) })
			t.Logf("real time taken: %s", time.Since(realStart))
		})
	}
}

func handOver(t *testing.T, tc handOverCase) {
	srv := fake.NewServer(fake.Options{}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "le"}}, deployment("apps", "web"))
	defer srv.Close()

	var mu sync.Mutex
	reconciledBy := map[string]int{}
	newReplica := func(identity string) *manager.Manager {
		election := productionElection(identity)
		election.ReleaseOnCancel = tc.release
		mgr, err := manager.New(manager.Options{
			Config:         srv.InProcessConfig(),
			LeaderElection: election,
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

	// The leader goes.
	stopped := time.Now()
	if err := run1.Stop(); err != nil {
		t.Fatalf("first replica: %v", err)
	}
	<-second.Elected()
	took := time.Since(stopped)
	// Fake time: these bounds are exact arithmetic on the durations,
	// not a race with a loaded machine.
	if took < tc.earliest || took > tc.latest {
		t.Errorf("second replica elected %s after the leader stopped, want between %s and %s", took, tc.earliest, tc.latest)
	}
	synctest.Wait()
	mu.Lock()
	defer mu.Unlock()
	if reconciledBy["first"] != 1 || reconciledBy["second"] != 1 {
		t.Errorf("reconciles by replica %v, want the deployment reconciled once by each leader", reconciledBy)
	}
}
