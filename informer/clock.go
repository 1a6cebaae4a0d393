package informer

import "time"

// Clock is the time source of reflectors and informers. Inject a fake in
// tests, or run them inside testing/synctest where the real clock is fake.
type Clock interface {
	Now() time.Time
	// NewTimer returns a channel that receives once after d and a function
	// that stops the timer.
	NewTimer(d time.Duration) (<-chan time.Time, func() bool)
}

// RealClock is the wall clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// NewTimer wraps time.NewTimer.
func (RealClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}
