package workqueue

import "time"

// ExponentialOptions configure an Exponential limiter. The zero value means
// a 5ms base and a 1000s cap.
type ExponentialOptions struct {
	// Base is the delay after the first failure. Zero means 5ms.
	Base time.Duration
	// Max caps the delay. Zero means 1000s.
	Max time.Duration
}

// Exponential is a per-key backoff: after a key's n-th consecutive failure
// (n from 1) it waits Base·2^(n-1), capped at Max, until it is forgotten.
type Exponential[K comparable] struct {
	base, max time.Duration
	failures  failures[K]
}

// NewExponential returns an Exponential limiter.
func NewExponential[K comparable](opts ExponentialOptions) *Exponential[K] {
	e := &Exponential[K]{base: opts.Base, max: opts.Max}
	if e.base <= 0 {
		e.base = 5 * time.Millisecond
	}
	if e.max <= 0 {
		e.max = 1000 * time.Second
	}
	return e
}

// When records a failure of k and returns its backoff.
func (e *Exponential[K]) When(k K) time.Duration {
	return backoff(e.base, e.max, e.failures.inc(k))
}

// Forget resets k's backoff.
func (e *Exponential[K]) Forget(k K) { e.failures.forget(k) }

// NumRequeues returns the failures of k since it was last forgotten.
func (e *Exponential[K]) NumRequeues(k K) int { return e.failures.get(k) }

// backoff returns base·2^exp capped at max, without overflowing.
func backoff(base, max time.Duration, exp int) time.Duration {
	if base >= max {
		return max
	}
	if exp >= 63 || base > max>>uint(exp) {
		return max
	}
	return base << uint(exp)
}
