package manager_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/manager"
)

func TestControllersAndRunnablesAddedAfterStart(t *testing.T) {
	srv := fake.NewServer(fake.Options{}, deployment("apps", "web"))
	defer srv.Close()
	mgr, err := manager.New(manager.Options{Config: srv.Config(), GracefulShutdownTimeout: 20 * time.Second})
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
	eventually(t, "labeled by the late controller", func() bool {
		d, err := client.Typed[*appsv1.Deployment](mgr.Client()).Namespace("apps").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && d.Labels["done"] == "yes"
	})

	// A runnable added now runs until the Manager stops, which waits for
	// it to return.
	running := make(chan struct{})
	var returned atomic.Bool
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		close(running)
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond) // a slow drain: Start must wait
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
	srv := fake.NewServer(fake.Options{}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "le"}})
	defer srv.Close()
	lock := types.NamespacedName{Namespace: "le", Name: "lease"}
	mgr, err := manager.New(manager.Options{
		Config: srv.Config(),
		LeaderElection: &leaderelection.Config{
			Lock: lock, Identity: "me",
			LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 100 * time.Millisecond,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(t.Context()) }()
	select {
	case <-mgr.Elected():
	case <-time.After(20 * time.Second):
		t.Fatal("never elected")
	}
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
	select {
	case <-running:
	case <-time.After(20 * time.Second):
		t.Fatal("a leader-only runnable added while leading did not run")
	}

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
	select {
	case <-termEnded:
	case <-time.After(20 * time.Second):
		t.Fatal("the runnable outlived the term")
	}
	select {
	case err := <-done:
		if !errors.Is(err, manager.ErrLeadershipLost) {
			t.Fatalf("Start = %v, want ErrLeadershipLost", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the manager kept running after losing leadership")
	}
	noLeaks(t)
}

// Adds racing with the stop: every runnable Add accepts is run and has
// returned when Start returns; every other Add reports ErrStopped.
func TestAddRacingWithStopLosesNothing(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	mgr, err := manager.New(manager.Options{Config: srv.Config()})
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
// workqueue packages are still running (after a grace period for those
// on their way out).
func noLeaks(t *testing.T) {
	t.Helper()
	var left []string
	deadline := time.Now().Add(5 * time.Second)
	for {
		left = left[:0]
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
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Errorf("%d goroutines left behind; the first:\n%s", len(left), left[0])
	}
}

// A runnable that needs leadership, added before this replica leads,
// waits for its term.
func TestLeaderOnlyRunnableAddedWhileFollowingWaitsForTheTerm(t *testing.T) {
	other := "someone-else"
	now := metav1.NewMicroTime(time.Now())
	held := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "le", Name: "lease"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &other, LeaseDurationSeconds: new(int32(2)),
			AcquireTime: &now, RenewTime: &now},
	}
	srv := fake.NewServer(fake.Options{}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "le"}}, held)
	defer srv.Close()
	mgr, err := manager.New(manager.Options{
		Config: srv.Config(),
		LeaderElection: &leaderelection.Config{
			Lock: types.NamespacedName{Namespace: "le", Name: "lease"}, Identity: "me",
			LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 100 * time.Millisecond,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	<-mgr.Serving()
	ran := make(chan bool, 1) // whether this replica led when it ran
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		ran <- mgr.IsLeader()
		<-ctx.Done()
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	select {
	case leading := <-ran:
		if !leading {
			t.Fatal("a leader-only runnable ran while following")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the runnable never ran once the lease expired")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Start: %v", err)
	}
	noLeaks(t)
}
