package rest

import (
	"context"
	"time"
)

// Clock is the client's source of time: it dates cached credentials and
// waits between retries. Implementations must be safe for concurrent use.
type Clock interface {
	Now() time.Time
	// Sleep waits for d or until ctx ends, returning ctx.Err() in the latter
	// case and nil otherwise.
	Sleep(ctx context.Context, d time.Duration) error
}

// realClock is the Clock used when Config.Clock is nil.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
