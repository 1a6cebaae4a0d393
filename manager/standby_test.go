package manager_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/manager"
)

// deploymentReads counts, per replica, the requests that read
// Deployments from the server (lists and watches, which carry the initial
// state), with when they were sent.
type deploymentReads struct {
	mu    sync.Mutex
	sends map[string][]time.Time
}

func (d *deploymentReads) wrap(identity string, inner func(http.RoundTripper) http.RoundTripper) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		next = inner(next)
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/deployments") {
				d.mu.Lock()
				d.sends[identity] = append(d.sends[identity], time.Now())
				d.mu.Unlock()
			}
			return next.RoundTrip(r)
		})
	}
}

// since returns how many reads identity sent at or after t.
func (d *deploymentReads) since(identity string, t time.Time) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, at := range d.sends[identity] {
		if !at.Before(t) {
			n++
		}
	}
	return n
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A replica that does not lead keeps the caches of its leader-only
// controllers synced (warm, the default) or holds none of them (cold);
// either way it reconciles nothing until elected. The successor's first
// reconcile follows a released Lease at once and a dead leader's Lease
// expiry, and a warm successor sends no list or watch of the controller's
// objects before it. Production durations, in fake time.
func TestStandbyAndHandOver(t *testing.T) {
	const lease = leaderelection.DefaultLeaseDuration
	cases := []struct {
		name             string
		standby          controller.Standby
		release          bool
		earliest, latest time.Duration // of the successor's first reconcile after the stop
	}{
		{"warm standby, graceful stop: first reconcile at the release", controller.StandbyDefault, true, 0, 0},
		{"warm standby, dead leader: first reconcile at the lease's expiry", controller.StandbyWarm, false, lease - leaderelection.DefaultRetryPeriod, lease},
		{"cold standby, graceful stop: lists, then reconciles at once", controller.StandbyCold, true, 0, 0},
		{"cold standby, dead leader: lists at the lease's expiry", controller.StandbyCold, false, lease - leaderelection.DefaultRetryPeriod, lease},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				objs := []runtime.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "le"}}}
				for i := range 50 {
					objs = append(objs, deployment("apps", fmt.Sprint("web-", i)))
				}
				srv := fake.NewServer(fake.Options{}, objs...)
				defer srv.Close()
				reads := &deploymentReads{sends: map[string][]time.Time{}}
				var mu sync.Mutex
				first := map[string]time.Time{} // each replica's first reconcile
				reconciles := map[string]int{}
				newReplica := func(identity string) *manager.Manager {
					election := productionElection(identity)
					election.ReleaseOnCancel = tc.release
					cfg := srv.InProcessConfig()
					cfg.WrapTransport = reads.wrap(identity, cfg.WrapTransport)
					mgr, err := manager.New(manager.Options{Config: cfg, LeaderElection: election, Standby: tc.standby, Logger: kubegotest.Logger(t, nil)})
					if err != nil {
						t.Fatal(err)
					}
					if _, err := mgr.NewController(controller.Options{
						Name: "count",
						Reconciler: controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) {
							mu.Lock()
							defer mu.Unlock()
							if reconciles[identity] == 0 {
								first[identity] = time.Now()
							}
							reconciles[identity]++
							return controller.Result{}, nil
						}),
						Sources: []controller.Source{controller.For[*appsv1.Deployment]{}},
					}); err != nil {
						t.Fatal(err)
					}
					return mgr
				}
				leader, standby := newReplica("leader"), newReplica("standby")
				run := kubegotest.Start(t, leader)
				<-leader.Elected()
				kubegotest.Start(t, standby)
				time.Sleep(time.Minute + 700*time.Millisecond)
				synctest.Wait()

				warm := tc.standby != controller.StandbyCold
				synced, cached := false, 0
				for name, ok := range standby.Factory().SyncStates() {
					if strings.Contains(name, "Deployment") {
						cached++
						synced = ok
					}
				}
				switch {
				case standby.IsLeader():
					t.Fatal("the standby leads while the leader renews")
				case warm && (cached != 1 || !synced):
					t.Fatalf("warm standby: %d Deployment informers, synced %v; want one, synced", cached, synced)
				case !warm && cached != 0:
					t.Fatalf("cold standby: %d Deployment informers, want none", cached)
				}
				rec := httptest.NewRecorder()
				standby.HealthHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
				if rec.Code != http.StatusOK {
					t.Errorf("standby /readyz = %d %s, want 200", rec.Code, rec.Body)
				}
				mu.Lock()
				if reconciles["standby"] != 0 {
					t.Errorf("the standby reconciled %d times before leading", reconciles["standby"])
				}
				mu.Unlock()

				stopped := time.Now()
				if err := run.Stop(); err != nil {
					t.Fatalf("leader: %v", err)
				}
				<-standby.Elected()
				synctest.Wait()
				mu.Lock()
				took, n := first["standby"].Sub(stopped), reconciles["standby"]
				mu.Unlock()
				// Fake time: exact arithmetic on the durations.
				if took < tc.earliest || took > tc.latest {
					t.Errorf("successor's first reconcile %s after the leader stopped, want between %s and %s", took, tc.earliest, tc.latest)
				}
				if n != 50 {
					t.Errorf("successor reconciled %d times, want each of the 50 Deployments once", n)
				}
				listed := reads.since("standby", stopped)
				if warm && listed != 0 {
					t.Errorf("warm successor read Deployments %d times from the server after the stop, want none", listed)
				}
				if !warm && listed == 0 {
					t.Error("cold successor reconciled without reading Deployments from the server")
				}
			})
		})
	}
}
