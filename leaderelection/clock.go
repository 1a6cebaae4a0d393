package leaderelection

import "time"

// Clock is the elector's source of time. Every duration of the election is
// measured on it: terms, expiries, retry waits and the deadlines of store
// calls. The zero Config uses the system clock (whose readings carry Go's
// monotonic clock); tests inject a fake one or run under testing/synctest.
//
// Implementations must be safe for concurrent use.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has elapsed (at once when
	// d <= 0) and returns a Timer that can cancel the call, like
	// time.AfterFunc.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the handle AfterFunc returns. *time.Timer satisfies it.
type Timer interface {
	// Stop prevents the call from happening; it reports whether it did.
	Stop() bool
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
