package kubegotest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// Starter is what Start runs: a manager.Manager, a controller.Controller,
// or anything else whose Start runs until its context ends.
type Starter interface {
	Start(ctx context.Context) error
}

// Running is the handle of a Starter that Start runs for a test: Stop
// it early, wait for it (Done) or read its error (Err). Safe for
// concurrent use.
type Running struct {
	cancel  context.CancelFunc
	done    chan struct{}
	err     error // set before done is closed
	handled atomic.Bool
}

// Start calls s.Start in a goroutine of its own for the rest of the test:
// its context is a child of t.Context(), and a cleanup function cancels it
// and waits for Start to return. If Start returns an error other than the
// end of its context, the test fails with it at cleanup, unless the test
// took it from Stop or Err. Inside a testing/synctest bubble, call it with
// the t that synctest.Test gives its function, so that the cleanup runs in
// the bubble.
func Start(t testing.TB, s Starter) *Running {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	r := &Running{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = s.Start(ctx)
	}()
	t.Cleanup(func() {
		r.cancel()
		<-r.done
		if err := r.result(); err != nil && !r.handled.Load() {
			t.Errorf("Start: %v", err)
		}
	})
	return r
}

// Stop cancels Start's context, waits for Start to return and returns its
// error: nil when Start ended because of the cancellation (or returned an
// error wrapping context.Canceled).
func (r *Running) Stop() error {
	r.cancel()
	<-r.done
	r.handled.Store(true)
	return r.result()
}

// Done is closed when Start has returned.
func (r *Running) Done() <-chan struct{} { return r.done }

// Err returns what Start returned once Done is closed (nil before, and
// nil for an error wrapping context.Canceled).
func (r *Running) Err() error {
	select {
	case <-r.done:
		r.handled.Store(true)
		return r.result()
	default:
		return nil
	}
}

func (r *Running) result() error {
	if r.err != nil && !errors.Is(r.err, context.Canceled) {
		return r.err
	}
	return nil
}
