package workqueue

import (
	"time"

	"github.com/kubego/kubego/backoff"
	"github.com/kubego/kubego/clock"
)

// RateLimiter decides how long a failing key waits before it is retried.
// Implementations must be safe for concurrent use.
type RateLimiter[K comparable] interface {
	// When returns how long k should wait before its next attempt, and
	// records one more failure of k.
	When(k K) time.Duration
	// Forget drops what the limiter remembers about k: its next failure
	// counts as the first.
	Forget(k K)
	// NumRequeues returns how many failures of k were recorded since it
	// was last forgotten.
	NumRequeues(k K) int
}

// DefaultRateLimiter returns the limiter a Queue uses when Options leave it
// nil, suitable for controllers: the larger of a per-key exponential backoff
// (5ms doubling up to 1000s) and an overall token bucket (10 retries per
// second, bursts of 100) read on c, which may be nil for the system
// clock. The bucket only paces retries; first adds are never limited.
func DefaultRateLimiter[K comparable](c clock.Clock) *MaxOf[K] {
	return NewMaxOf(
		NewExponential[K](backoff.Backoff{}),
		NewBucket[K](BucketOptions{Clock: c}),
	)
}

// MaxOf combines rate limiters: a key waits as long as the slowest of them
// says, and its requeue count is the largest they report.
type MaxOf[K comparable] struct {
	limiters []RateLimiter[K]
}

// NewMaxOf returns a MaxOf of limiters. With no limiters, every delay is 0.
func NewMaxOf[K comparable](limiters ...RateLimiter[K]) *MaxOf[K] {
	return &MaxOf[K]{limiters: append([]RateLimiter[K](nil), limiters...)}
}

// When asks every limiter (so each records the failure) and returns the
// longest delay.
func (m *MaxOf[K]) When(k K) time.Duration {
	var longest time.Duration
	for _, l := range m.limiters {
		if d := l.When(k); d > longest {
			longest = d
		}
	}
	return longest
}

// Forget forgets k in every limiter.
func (m *MaxOf[K]) Forget(k K) {
	for _, l := range m.limiters {
		l.Forget(k)
	}
}

// NumRequeues returns the largest count any limiter reports.
func (m *MaxOf[K]) NumRequeues(k K) int {
	most := 0
	for _, l := range m.limiters {
		if n := l.NumRequeues(k); n > most {
			most = n
		}
	}
	return most
}
