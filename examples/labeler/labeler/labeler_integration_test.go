package labeler_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/examples/labeler/labeler"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// env is one test's namespace on the shared control plane.
type env struct {
	t  *testing.T
	cp *testenv.ControlPlane
	c  *client.Client
	ns string
}

func newEnv(t *testing.T) *env {
	cp := testenv.Shared(t)
	mgr, err := manager.New(manager.Options{Config: cp.Config()})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, cp: cp, c: mgr.Client(), ns: strings.ToLower(strings.ReplaceAll(t.Name(), "_", "-"))}
	if _, err := client.Typed[*corev1.Namespace](e.c).Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return e
}

// create creates Deployments named prefix-0 … prefix-(n-1), 8 at a time.
func (e *env) create(prefix string, n int) {
	e.t.Helper()
	deps := client.Typed[*appsv1.Deployment](e.c).Namespace(e.ns)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			_, err := deps.Create(e.t.Context(), deployment(fmt.Sprintf("%s-%d", prefix, i)), metav1.CreateOptions{})
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		e.t.Fatal(err)
	}
}

// labeled returns how many Deployments of the namespace carry the label,
// and how many there are.
func (e *env) labeled() (labeled, total int) {
	e.t.Helper()
	list, err := client.Typed[*appsv1.Deployment](e.c).Namespace(e.ns).List(e.t.Context(), metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, d := range list.Items {
		if d.Labels[labeler.Label] != "" {
			labeled++
		}
	}
	return labeled, len(list.Items)
}

// waitAllLabeled waits until every Deployment of the namespace is labeled,
// and returns how long that took.
func (e *env) waitAllLabeled(want int, timeout time.Duration) time.Duration {
	e.t.Helper()
	start := time.Now()
	for {
		l, total := e.labeled()
		if l == want && total == want {
			return time.Since(start)
		}
		if time.Since(start) > timeout {
			e.t.Fatalf("%d of %d deployments labeled after %s (want %d)", l, total, timeout, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// patchCounter counts the PATCH requests to deployments going through a
// manager's client.
type patchCounter struct{ n atomic.Int64 }

func (p *patchCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Method == http.MethodPatch && strings.Contains(r.URL.Path, "/deployments/") {
			p.n.Add(1)
		}
		return rt.RoundTrip(r)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// runLabeler starts a labeler manager for the namespace; stop cancels it
// and waits for it to return.
func (e *env) runLabeler(opts manager.Options, workers int) (mgr *manager.Manager, stop func() error) {
	e.t.Helper()
	cfg := e.cp.Config()
	if opts.Config != nil {
		cfg = opts.Config
	}
	opts.Config = cfg
	mgr, err := manager.New(opts)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := labeler.Setup(mgr, labeler.Options{Namespace: e.ns, Workers: workers}); err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(e.t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	var once sync.Once
	var result error
	stop = func() error {
		once.Do(func() { cancel(); result = <-done })
		return result
	}
	e.t.Cleanup(func() { _ = stop() })
	return mgr, stop
}

func deployment(name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
}

func TestLabelsDeploymentsCreatedBeforeAndWhileRunning(t *testing.T) {
	e := newEnv(t)
	e.create("before", 250)
	var patches patchCounter
	cfg := e.cp.Config()
	cfg.WrapTransport = patches.wrap
	_, stop := e.runLabeler(manager.Options{Config: cfg}, 0)
	e.create("while", 250)
	took := e.waitAllLabeled(500, 45*time.Second)
	t.Logf("500 deployments labeled %s after the last create; %d patches", took, patches.n.Load())
	if err := stop(); err != nil {
		t.Fatalf("manager: %v", err)
	}
	if n := patches.n.Load(); n < 500 || n > 520 {
		t.Errorf("%d patches for 500 deployments; want about one each", n)
	}
}

func TestLabelerKilledMidwayConvergesAfterRestart(t *testing.T) {
	e := newEnv(t)
	const n = 300
	e.create("d", n)
	var patches patchCounter
	cfg := e.cp.Config()
	cfg.WrapTransport = patches.wrap
	_, stop := e.runLabeler(manager.Options{Config: cfg}, 1)
	for patches.n.Load() < 30 {
		time.Sleep(5 * time.Millisecond)
	}
	if err := stop(); err != nil {
		t.Fatalf("first manager: %v", err)
	}
	l, _ := e.labeled()
	t.Logf("killed after %d labeled", l)
	if l == n {
		t.Log("the first labeler finished before it was stopped; the restart has nothing to do")
	}
	_, stop2 := e.runLabeler(manager.Options{}, 0)
	e.waitAllLabeled(n, 45*time.Second)
	if err := stop2(); err != nil {
		t.Fatalf("second manager: %v", err)
	}
}

func TestOnlyTheLeaderLabelsAndItHandsOver(t *testing.T) {
	e := newEnv(t)
	type replica struct {
		patches patchCounter
		mgr     *manager.Manager
		stop    func() error
	}
	var rs [2]*replica
	for i := range rs {
		r := &replica{}
		cfg := e.cp.Config()
		cfg.WrapTransport = r.patches.wrap
		r.mgr, r.stop = e.runLabeler(manager.Options{
			Config: cfg,
			LeaderElection: &leaderelection.Config{
				Lock:            types.NamespacedName{Namespace: e.ns, Name: "labeler"},
				Identity:        fmt.Sprintf("replica-%d", i),
				LeaseDuration:   4 * time.Second,
				RenewDeadline:   3 * time.Second,
				RetryPeriod:     500 * time.Millisecond,
				ReleaseOnCancel: true,
			},
		}, 0)
		rs[i] = r
	}
	var leader, follower *replica
	select {
	case <-rs[0].mgr.Elected():
		leader, follower = rs[0], rs[1]
	case <-rs[1].mgr.Elected():
		leader, follower = rs[1], rs[0]
	case <-time.After(20 * time.Second):
		t.Fatal("nobody was elected")
	}
	e.create("first", 50)
	e.waitAllLabeled(50, 30*time.Second)
	if leader.patches.n.Load() < 50 || follower.patches.n.Load() != 0 || follower.mgr.IsLeader() {
		t.Fatalf("patches: leader %d, follower %d (leading: %v); want only the leader to act",
			leader.patches.n.Load(), follower.patches.n.Load(), follower.mgr.IsLeader())
	}

	before := leader.patches.n.Load()
	start := time.Now()
	if err := leader.stop(); err != nil {
		t.Fatalf("leader: %v", err)
	}
	select {
	case <-follower.mgr.Elected():
		t.Logf("hand-over took %s", time.Since(start))
	case <-time.After(20 * time.Second):
		t.Fatal("the follower never took over")
	}
	e.create("second", 50)
	e.waitAllLabeled(100, 30*time.Second)
	if leader.patches.n.Load() != before || follower.patches.n.Load() < 50 {
		t.Fatalf("after hand-over: old leader %d patches (was %d), new leader %d", leader.patches.n.Load(), before, follower.patches.n.Load())
	}
}
