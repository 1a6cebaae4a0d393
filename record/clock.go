package record

import "time"

// Clock is the recorder's source of time: event timestamps, series windows,
// the spam limit's refill and retry waits. The zero Options use the system
// clock; tests inject a fake one or run under testing/synctest.
//
// Implementations must be safe for concurrent use.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has elapsed (at once when
	// d <= 0) and returns a Timer that can cancel the call.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the handle AfterFunc returns. *time.Timer satisfies it.
type Timer interface {
	Stop() bool
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
