package client

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubego/kubego/backoff"
)

// Conflict retry defaults, for zero fields of the Backoff given to
// RetryOnConflict.
const (
	defaultConflictSteps   = 5
	defaultConflictInitial = 10 * time.Millisecond
)

// DefaultBackoff is the backoff of conflict retries, used when
// RetryOnConflict is given a zero Backoff: 5 attempts, 10ms apart with 10%
// jitter, as conflicts usually clear at once.
func DefaultBackoff() backoff.Backoff {
	return backoff.Backoff{Steps: defaultConflictSteps, Initial: defaultConflictInitial, Factor: 1, Jitter: 0.1}
}

// isZero reports whether b has no field set.
func isZero(b backoff.Backoff) bool {
	return b == backoff.Backoff{}
}

// RetryOnConflict calls fn until it returns something other than a
// conflict error (apierrors.IsConflict), waiting between attempts as b
// says. It returns nil on success, fn's error when it is not a conflict,
// the last conflict error after b.Steps attempts, or the context's error
// (wrapping the last conflict too) when ctx ends first.
//
// A zero b means DefaultBackoff(). Otherwise zero fields mean: Steps 5,
// Initial 10ms, Factor 1 (also for a Factor below 1), no Max, no jitter.
// The wait after attempt n is b.Delay(n) plus its jitter, so with Jitter
// set a wait may exceed Max by up to Jitter×Max.
//
// fn must re-read the object and re-apply its change on each call: a
// conflict means the copy it changed was stale.
func RetryOnConflict(ctx context.Context, b backoff.Backoff, fn func(ctx context.Context) error) error {
	if isZero(b) {
		b = DefaultBackoff()
	}
	if b.Steps <= 0 {
		b.Steps = defaultConflictSteps
	}
	if b.Initial <= 0 {
		b.Initial = defaultConflictInitial
	}
	wait := b.Delay(1)
	var err error
	for attempt := 1; ; attempt++ {
		if cerr := ctx.Err(); cerr != nil {
			if err != nil {
				return fmt.Errorf("%w (last attempt: %w)", cerr, err)
			}
			return cerr
		}
		err = fn(ctx)
		if err == nil || !apierrors.IsConflict(err) || attempt >= b.Steps {
			return err
		}
		t := time.NewTimer(b.Jittered(wait))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (last attempt: %w)", ctx.Err(), err)
		case <-t.C:
		}
		wait = b.Next(wait)
	}
}
