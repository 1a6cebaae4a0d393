package kubegotest

import (
	"context"
	"testing"
	"time"
)

// Consistently calls cond every interval (100ms when zero) for the span d,
// and fails t with cond's error the first time it is not nil: for what
// must not happen (a controller that must leave an object alone, a count
// that must not grow). It also fails t when ctx ends before d has passed.
// Inside a testing/synctest bubble d passes in fake time, so a
// Consistently of an hour costs no real time. Like t.Fatal, call it from
// the test's goroutine.
func Consistently(ctx context.Context, t testing.TB, d, interval time.Duration, cond func(ctx context.Context) error) {
	t.Helper()
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	end := time.Now().Add(d)
	for attempt := 1; ; attempt++ {
		if err := cond(ctx); err != nil {
			t.Fatalf("kubegotest: Consistently: attempt %d, %s into %s: %v", attempt, d-time.Until(end).Round(time.Millisecond), d, err)
		}
		left := time.Until(end)
		if left <= 0 {
			return
		}
		timer := time.NewTimer(min(interval, left))
		select {
		case <-ctx.Done():
			timer.Stop()
			t.Fatalf("kubegotest: Consistently: %v before %s had passed", ctx.Err(), d)
		case <-timer.C:
		}
	}
}
