package client

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Backoff says how often and how fast to retry. The zero value means
// DefaultBackoff().
type Backoff struct {
	// Steps is the number of attempts, the first included. Zero means 5.
	Steps int
	// Duration is the wait before the second attempt. Zero means 10ms.
	Duration time.Duration
	// Factor multiplies the wait after each retry; below 1 means 1.
	Factor float64
	// Jitter adds up to Jitter×wait of random extra wait; 0 means none.
	Jitter float64
	// Cap bounds a single wait; zero means no bound.
	Cap time.Duration
}

// DefaultBackoff is the backoff of conflict retries: 5 attempts, 10ms
// apart with 10% jitter, as conflicts usually clear at once.
func DefaultBackoff() Backoff {
	return Backoff{Steps: 5, Duration: 10 * time.Millisecond, Factor: 1, Jitter: 0.1}
}

// RetryOnConflict calls fn until it returns something other than a
// conflict error (apierrors.IsConflict), waiting between attempts as b
// says. It returns nil on success, fn's error when it is not a conflict,
// the last conflict error after b.Steps attempts, or the context's error
// (wrapping the last conflict too) when ctx ends first.
//
// fn must re-read the object and re-apply its change on each call: a
// conflict means the copy it changed was stale.
func RetryOnConflict(ctx context.Context, b Backoff, fn func(ctx context.Context) error) error {
	if b == (Backoff{}) {
		b = DefaultBackoff()
	}
	if b.Steps <= 0 {
		b.Steps = 5
	}
	if b.Duration <= 0 {
		b.Duration = 10 * time.Millisecond
	}
	if b.Factor < 1 {
		b.Factor = 1
	}
	wait := b.Duration
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
		d := wait
		if b.Jitter > 0 {
			d += time.Duration(rand.Float64() * b.Jitter * float64(d))
		}
		if b.Cap > 0 && d > b.Cap {
			d = b.Cap
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (last attempt: %w)", ctx.Err(), err)
		case <-t.C:
		}
		wait = time.Duration(float64(wait) * b.Factor)
		if b.Cap > 0 && wait > b.Cap {
			wait = b.Cap
		}
	}
}
