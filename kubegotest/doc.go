// Package kubegotest helps tests of controllers: Eventually polls a
// condition until it holds or the context ends, failing the test with the
// condition's last answer; Logger writes a program's slog records to the
// test's output; Events and CoreEvents list the Events about an object;
// Start runs a Manager (or anything with Start(ctx) error) for the rest of
// a test; Settle and WaitIdle wait until controllers have nothing queued
// or in flight.
//
//	func TestScales(t *testing.T) {
//		ctx := t.Context()
//		mgr, _ := manager.New(manager.Options{Config: cfg, Logger: kubegotest.Logger(t, nil)})
//		...
//		kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
//			d, err := deployments.Get(ctx, "web", metav1.GetOptions{})
//			if err != nil {
//				return err
//			}
//			if d.Status.AvailableReplicas != 3 {
//				return fmt.Errorf("%d replicas available, want 3", d.Status.AvailableReplicas)
//			}
//			return nil
//		})
//	}
//
// # Controllers in fake time
//
// A controller whose behaviour depends on time (a RequeueAfter to the next
// scheduled run, lease expiry and hand-over, retries with backoff, event
// series) is tested in a testing/synctest bubble against
// fake.Server.InProcessConfig: the whole Manager, its informers and the
// in-memory API server run in the bubble, the wall clock (time.Now,
// timers, and so every nil clock.Clock) is fake, and it moves only when
// every goroutine of the bubble waits. A test then reads as a timeline:
//
//	synctest.Test(t, func(t *testing.T) {
//		srv := fake.NewServer(fake.Options{})
//		defer srv.Close()
//		mgr, _ := manager.New(manager.Options{Config: srv.InProcessConfig()})
//		ctrl, _ := scheduled.Setup(mgr, scheduled.Options{})
//		kubegotest.Start(t, mgr)
//		... create an object ...
//		time.Sleep(time.Hour)      // an hour passes, in no real time
//		kubegotest.Settle(t, ctrl) // everything it caused has run
//		... check what the controller wrote ...
//	})
//
// The rules of such a test: create the fake.Server, the Manager and every
// goroutine inside the bubble; leave the Manager's HealthAddr and
// MetricsAddr empty (a listener waits on the network, which a bubble
// cannot see); use production durations (15 s leases), since they cost no
// real time; call Settle after each step and before each check, instead of
// polling; and compare fake durations exactly, since they are arithmetic
// on the clock rather than a race with a loaded machine. Poll and
// Eventually work in a bubble too, but each wait moves the fake clock.
//
// # Tests on the wall clock
//
// Tests that need a real server (testenv's kube-apiserver) or real
// sockets (fault injection, probe servers) stay on the wall clock, under
// one rule: waits are polls (Eventually, Poll, WaitIdle) with generous
// bounds (ten times what a quiet machine needs), leases and periods are
// scaled from production ones only as far as needed, and measured
// durations are logged, never asserted: a machine running at a load of 8
// on 2 cores is slower by a factor no bound can name.
//
// # Fixtures
//
// Namespace gives each test a namespace of its own, named after the test
// and deleted when it ends, so that `go test -count=3` on one shared
// control plane never meets a previous run's objects. WaitForEvent waits
// for an Event of a reason about an object. Neither testenv nor fake runs
// kube-controller-manager: CompleteJob, FailJob and RollOutDeployment
// write the status its controllers would, in the shape kube-apiserver
// validates (a Complete Job needs SuccessCriteriaMet and a completion
// time; a Failed one FailureTarget), for controllers that react to the
// Jobs and Deployments they own.
package kubegotest
