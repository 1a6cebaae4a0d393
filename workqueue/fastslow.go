package workqueue

import "time"

// FastSlowOptions configure a FastSlow limiter. The zero value means 5
// attempts 5ms apart, then one every 10s.
type FastSlowOptions struct {
	// Fast is the delay of the first FastAttempts retries. Zero means 5ms.
	Fast time.Duration
	// Slow is the delay of every later retry. Zero means 10s.
	Slow time.Duration
	// FastAttempts is how many retries are fast. Zero means 5; negative
	// means none.
	FastAttempts int
}

// FastSlow is a per-key limiter that retries quickly a few times, then
// slowly, until the key is forgotten.
type FastSlow[K comparable] struct {
	fast, slow time.Duration
	attempts   int
	failures   failures[K]
}

// NewFastSlow returns a FastSlow limiter.
func NewFastSlow[K comparable](opts FastSlowOptions) *FastSlow[K] {
	f := &FastSlow[K]{fast: opts.Fast, slow: opts.Slow, attempts: opts.FastAttempts}
	if f.fast <= 0 {
		f.fast = 5 * time.Millisecond
	}
	if f.slow <= 0 {
		f.slow = 10 * time.Second
	}
	switch {
	case f.attempts == 0:
		f.attempts = 5
	case f.attempts < 0:
		f.attempts = 0
	}
	return f
}

// When records a failure of k and returns Fast for the first FastAttempts
// failures, Slow after.
func (f *FastSlow[K]) When(k K) time.Duration {
	if f.failures.inc(k) < f.attempts {
		return f.fast
	}
	return f.slow
}

// Forget resets k to fast retries.
func (f *FastSlow[K]) Forget(k K) { f.failures.forget(k) }

// NumRequeues returns the failures of k since it was last forgotten.
func (f *FastSlow[K]) NumRequeues(k K) int { return f.failures.get(k) }
