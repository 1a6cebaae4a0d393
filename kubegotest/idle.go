package kubegotest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
)

// Idler is what reports whether it has work queued or in flight: a
// controller.Controller, a workqueue.Queue.
type Idler interface {
	Idle() bool
}

// Settle is for tests inside a testing/synctest bubble: it waits until
// every goroutine of the bubble is durably blocked (synctest.Wait), so
// that every event, request and reconcile the test's last step caused has
// run, then fails t if one of idlers still has work queued or in flight:
// a reconcile that waits on the passing of time (which only the test
// moves, by sleeping) or on something outside the bubble. Call it after
// each step that causes work, before checking its effects or moving time
// on; it must be called from the bubble's test goroutine (synctest.Wait
// panics elsewhere).
func Settle(t testing.TB, idlers ...Idler) {
	t.Helper()
	synctest.Wait()
	for i, c := range idlers {
		if !c.Idle() {
			t.Fatalf("kubegotest: Settle: %s has work queued or in flight while the whole bubble waits (on time, or on something outside the bubble)", name(i, c))
		}
	}
}

// WaitIdle is for tests on the wall clock: it polls (see Poll) until every
// one of idlers is idle at once, failing t when ctx ends first
// (DefaultTimeout when it has no deadline). An idle controller may still
// be about to get a Request from an event its informer has not yet handed
// over: check the effect the test waits for, with Eventually, rather than
// idleness alone. Inside a synctest bubble use Settle, which does not move
// the fake clock.
func WaitIdle(ctx context.Context, t testing.TB, idlers ...Idler) {
	t.Helper()
	Eventually(ctx, t, func(context.Context) error {
		var busy []error
		for i, c := range idlers {
			if !c.Idle() {
				busy = append(busy, fmt.Errorf("%s has work queued or in flight", name(i, c)))
			}
		}
		return errors.Join(busy...)
	})
}

// name names the i-th idler in messages: by its Name method when it has
// one (a controller), else by its position.
func name(i int, c Idler) string {
	if n, ok := c.(interface{ Name() string }); ok {
		return fmt.Sprintf("%q", n.Name())
	}
	return fmt.Sprintf("idler %d", i)
}
