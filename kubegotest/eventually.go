package kubegotest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// DefaultTimeout bounds Eventually and Poll when their context has no
// deadline.
const DefaultTimeout = 30 * time.Second

// Polling intervals: the first retry comes quickly, later ones less often.
const (
	firstInterval = 10 * time.Millisecond
	maxInterval   = 500 * time.Millisecond
)

// ErrNotMet is wrapped by *NotMetError.
var ErrNotMet = errors.New("kubegotest: condition not met")

// NotMetError is returned by Poll when its context ended before the
// condition held. It wraps ErrNotMet, the context's error and the
// condition's last error.
type NotMetError struct {
	// Attempts is the number of times the condition was called.
	Attempts int
	// Elapsed is the time from the first call to the end.
	Elapsed time.Duration
	// Last is the condition's last error (nil if it was never called).
	Last error
	// Ctx is the context's error.
	Ctx error
}

func (e *NotMetError) Error() string {
	return fmt.Sprintf("kubegotest: condition not met after %s (%d attempts): %v", e.Elapsed.Round(time.Millisecond), e.Attempts, e.Last)
}

// Unwrap returns ErrNotMet, the context's error and the last error.
func (e *NotMetError) Unwrap() []error { return []error{ErrNotMet, e.Ctx, e.Last} }

// Poll calls cond until it returns nil, waiting between calls (10ms at
// first, then growing to 500ms). It returns nil once cond does, or a
// *NotMetError carrying cond's last error when ctx ends first; a ctx
// without deadline is given DefaultTimeout. cond gets ctx and should
// return an error saying what it saw ("2 replicas, want 3"), which is what
// a failure reports.
func Poll(ctx context.Context, cond func(ctx context.Context) error) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	start := time.Now()
	interval := firstInterval
	var last error
	for attempts := 1; ; attempts++ {
		if last = cond(ctx); last == nil {
			return nil
		}
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return &NotMetError{Attempts: attempts, Elapsed: time.Since(start), Last: last, Ctx: ctx.Err()}
		case <-t.C:
		}
		interval = min(2*interval, maxInterval)
	}
}

// Eventually is Poll for tests: it fails t with the *NotMetError (which
// names cond's last error) when the condition does not hold before ctx
// ends (DefaultTimeout when ctx has no deadline). Like t.Fatal, call it
// from the test's goroutine.
func Eventually(ctx context.Context, t testing.TB, cond func(ctx context.Context) error) {
	t.Helper()
	if err := Poll(ctx, cond); err != nil {
		t.Fatal(err)
	}
}
