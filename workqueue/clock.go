package workqueue

import "time"

// Clock is the source of time for delays and metrics. The zero Options use
// the system clock; tests inject a fake one, or run under testing/synctest,
// where the system clock is already fake.
//
// Implementations must be safe for concurrent use.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has elapsed and returns
	// a Timer that can stop or re-arm that call, like time.AfterFunc.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the handle AfterFunc returns. *time.Timer satisfies it.
type Timer interface {
	// Stop prevents the call from happening; it reports whether it did.
	Stop() bool
	// Reset re-arms the call to happen d from now (again, if it already
	// happened); it reports whether the call was still pending.
	Reset(d time.Duration) bool
}

// systemClock is the Clock backed by package time.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
