package clock

import (
	"context"
	"time"
)

// Clock tells the time and schedules calls. Implementations must be safe
// for concurrent use.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has elapsed (at once
	// when d <= 0) and returns a Timer that can stop or re-arm the call,
	// like time.AfterFunc.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the handle AfterFunc returns. *time.Timer satisfies it.
type Timer interface {
	// Stop prevents the call from happening; it reports whether it did
	// (false when the call already happened or the timer was stopped).
	Stop() bool
	// Reset re-arms the call to happen d from now (again, if it already
	// happened); it reports whether the call was still pending.
	Reset(d time.Duration) bool
}

// Real is the wall clock, backed by package time. Its zero value is ready
// to use.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// AfterFunc is time.AfterFunc.
func (Real) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// Or returns c, or Real when c is nil. Constructors use it to apply the
// "nil means the wall clock" rule of their Options.
func Or(c Clock) Clock {
	if c == nil {
		return Real{}
	}
	return c
}

// Sleep waits for d on c, or until ctx ends. It returns ctx.Err() when ctx
// ended first (or had already ended) and nil otherwise. A d <= 0 does not
// wait.
func Sleep(ctx context.Context, c Clock, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	done := make(chan struct{})
	t := c.AfterFunc(d, func() { close(done) })
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	}
}

// NewTimer returns a channel that receives c.Now() once, d from now, and a
// function that stops the timer (reporting, like Timer.Stop, whether it
// did). The channel has room for the one value, so the timer never blocks
// and nothing leaks when the channel is abandoned.
func NewTimer(c Clock, d time.Duration) (<-chan time.Time, func() bool) {
	ch := make(chan time.Time, 1)
	t := c.AfterFunc(d, func() { ch <- c.Now() })
	return ch, t.Stop
}
