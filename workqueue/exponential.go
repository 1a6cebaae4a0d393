package workqueue

import (
	"time"

	"github.com/kubego/kubego/backoff"
)

// The Exponential limiter's defaults, for zero fields of its Backoff.
const (
	defaultExponentialInitial = 5 * time.Millisecond
	defaultExponentialMax     = 1000 * time.Second
	defaultExponentialFactor  = 2
)

// Exponential is a per-key backoff: after a key's n-th consecutive failure
// (n from 1) it waits b.Delay(n) (Initial·Factor^(n-1), capped at Max)
// plus b's jitter, until it is forgotten.
type Exponential[K comparable] struct {
	b        backoff.Backoff
	failures failures[K]
}

// NewExponential returns an Exponential limiter growing as b says. Zero
// fields of b take the defaults: Initial 5ms, Max 1000s, Factor 2 (also
// for a Factor below 1), no jitter. Steps is ignored: a queue never gives
// up on a key (the caller decides, with NumRequeues).
func NewExponential[K comparable](b backoff.Backoff) *Exponential[K] {
	if b.Initial <= 0 {
		b.Initial = defaultExponentialInitial
	}
	if b.Max <= 0 {
		b.Max = defaultExponentialMax
	}
	if b.Factor < 1 {
		b.Factor = defaultExponentialFactor
	}
	return &Exponential[K]{b: b}
}

// When records a failure of k and returns its backoff.
func (e *Exponential[K]) When(k K) time.Duration {
	return e.b.Jittered(e.b.Delay(e.failures.inc(k) + 1))
}

// Forget resets k's backoff.
func (e *Exponential[K]) Forget(k K) { e.failures.forget(k) }

// NumRequeues returns the failures of k since it was last forgotten.
func (e *Exponential[K]) NumRequeues(k K) int { return e.failures.get(k) }
