package manager_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
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

func TestControllersAndRunnablesAddedAfterStart(t *testing.T) {
	synctest.Test(t, controllersAndRunnablesAddedAfterStart)
}

func controllersAndRunnablesAddedAfterStart(t *testing.T) {
	srv := fake.NewServer(fake.Options{}, deployment("apps", "web"))
	defer srv.Close()
	mgr, err := manager.New(manager.Options{Config: srv.InProcessConfig(), GracefulShutdownTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	<-mgr.Elected()

	// A controller made now: its informer starts on the running factory.
	var calls atomic.Int64
	if _, err := mgr.NewController(controller.Options{Name: "late", Reconciler: labelOnce(mgr, &calls),
		Sources: []controller.Source{controller.For[*appsv1.Deployment]{}}}); err != nil {
		t.Fatal(err)
	}
	synctest.Wait()
	if d, err := client.Typed[*appsv1.Deployment](mgr.Client()).Namespace("apps").Get(ctx, "web", metav1.GetOptions{}); err != nil || d.Labels["done"] != "yes" {
		t.Fatalf("not labeled by the late controller (err %v)", err)
	}

	// A runnable added now runs until the Manager stops, which waits for
	// it to return.
	running := make(chan struct{})
	var returned atomic.Bool
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		close(running)
		<-ctx.Done()
		time.Sleep(5 * time.Second) // a slow drain (fake time): Start must wait
		returned.Store(true)
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	<-running
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Start: %v", err)
	}
	if !returned.Load() {
		t.Error("Start returned before a runnable added after Start had drained")
	}
	if err := mgr.Add(manager.RunnableFunc(func(context.Context) error { return nil })); !errors.Is(err, manager.ErrStopped) {
		t.Errorf("Add after stop = %v, want ErrStopped", err)
	}
	if _, err := mgr.NewController(controller.Options{Name: "too-late", Reconciler: labelOnce(mgr, &calls),
		Sources: []controller.Source{controller.For[*appsv1.Deployment]{}}}); !errors.Is(err, manager.ErrStopped) {
		t.Errorf("NewController after stop = %v, want ErrStopped", err)
	}
	noLeaks(t)
}

// A runnable that needs leadership, added while leading, joins the current
// term and ends with it.
func TestLeaderOnlyRunnableAddedWhileLeadingJoinsTheTerm(t *testing.T) {
	synctest.Test(t, leaderOnlyRunnableAddedWhileLeadingJoinsTheTerm)
}

func leaderOnlyRunnableAddedWhileLeadingJoinsTheTerm(t *testing.T) {
	srv := fake.NewServer(fake.Options{}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "le"}})
	defer srv.Close()
	election := productionElection("me")
	lock := election.Lock
	mgr, err := manager.New(manager.Options{Config: srv.InProcessConfig(), LeaderElection: election})
	if err != nil {
		t.Fatal(err)
	}
	run := kubegotest.Start(t, mgr)
	<-mgr.Elected()
	running := make(chan struct{})
	termEnded := make(chan struct{})
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		close(running)
		<-ctx.Done()
		close(termEnded)
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	<-running

	// Another candidate takes the lease over: the term ends.
	leases := client.Typed[*coordinationv1.Lease](mgr.Client()).Namespace(lock.Namespace)
	l, err := leases.Get(t.Context(), lock.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other := "someone-else"
	l.Spec.HolderIdentity = &other
	if _, err := leases.Update(t.Context(), l, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	<-termEnded
	<-run.Done()
	if err := run.Err(); !errors.Is(err, leaderelection.ErrLeaseLost) {
		t.Fatalf("Start = %v, want leaderelection.ErrLeaseLost", err)
	}
	noLeaks(t)
}

// Adds racing with the stop: every runnable Add accepts is run and has
// returned when Start returns; every other Add reports ErrStopped.
func TestAddRacingWithStopLosesNothing(t *testing.T) {
	synctest.Test(t, addRacingWithStopLosesNothing)
}

func addRacingWithStopLosesNothing(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	mgr, err := manager.New(manager.Options{Config: srv.InProcessConfig()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	<-mgr.Elected()

	var accepted, ran, returned atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
					ran.Add(1)
					<-ctx.Done()
					returned.Add(1)
					return nil
				}))
				switch {
				case err == nil:
					accepted.Add(1)
				case !errors.Is(err, manager.ErrStopped):
					t.Errorf("Add = %v", err)
					return
				}
				runtime.Gosched()
			}
		})
	}
	for accepted.Load() < 20 {
		runtime.Gosched() // stop while Adds are coming in
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Start: %v", err)
	}
	doneReturned := returned.Load()
	wg.Wait()
	if ran.Load() != accepted.Load() || doneReturned != accepted.Load() {
		t.Fatalf("%d runnables accepted, %d ran, %d had returned when Start returned", accepted.Load(), ran.Load(), doneReturned)
	}
	noLeaks(t)
}

// noLeaks fails t if goroutines of the manager, controller, informer or
// workqueue packages are still running once every goroutine of the
// test's synctest bubble is blocked.
func noLeaks(t *testing.T) {
	t.Helper()
	synctest.Wait()
	var left []string
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, pkg := range []string{"manager.", "controller.", "informer.", "workqueue."} {
			if strings.Contains(g, "github.com/kubego/kubego/"+pkg) {
				left = append(left, g)
				break
			}
		}
	}
	if len(left) > 0 {
		t.Errorf("%d goroutines left behind; the first:\n%s", len(left), left[0])
	}
}

// A runnable that needs leadership, added before this replica leads,
// waits for its term.
func TestLeaderOnlyRunnableAddedWhileFollowingWaitsForTheTerm(t *testing.T) {
	synctest.Test(t, leaderOnlyRunnableAddedWhileFollowingWaitsForTheTerm)
}

func leaderOnlyRunnableAddedWhileFollowingWaitsForTheTerm(t *testing.T) {
	election := productionElection("me")
	other := "someone-else"
	now := metav1.NewMicroTime(time.Now())
	held := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: election.Lock.Namespace, Name: election.Lock.Name},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &other, LeaseDurationSeconds: new(int32(leaderelection.DefaultLeaseDuration / time.Second)),
			AcquireTime: &now, RenewTime: &now},
	}
	srv := fake.NewServer(fake.Options{}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "le"}}, held)
	defer srv.Close()
	mgr, err := manager.New(manager.Options{Config: srv.InProcessConfig(), LeaderElection: election})
	if err != nil {
		t.Fatal(err)
	}
	run := kubegotest.Start(t, mgr)
	<-mgr.Serving()
	start := time.Now()
	ran := make(chan bool, 1) // whether this replica led when it ran
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		ran <- mgr.IsLeader()
		<-ctx.Done()
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	if leading := <-ran; !leading {
		t.Fatal("a leader-only runnable ran while following")
	}
	// Fake time: the other holder's lease had to expire first.
	if d := time.Since(start); d < leaderelection.DefaultLeaseDuration-leaderelection.DefaultRetryPeriod {
		t.Errorf("the runnable ran %s after Start, before the other holder's lease expired", d)
	}
	if err := run.Stop(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	noLeaks(t)
}
