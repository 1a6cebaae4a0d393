package workqueue

import (
	"sync"
	"time"

	"github.com/kubego/kubego/clock"
)

// BucketOptions configure a Bucket limiter. The zero value means 10 per
// second with bursts of 100 on the system clock.
type BucketOptions struct {
	// QPS is the sustained rate, in retries per second. Zero means 10;
	// a negative or infinite rate is not meaningful, and is treated as 10.
	QPS float64
	// Burst is how many retries may go without delay after a quiet
	// period. Zero or negative means 100.
	Burst int
	// Clock is the time source. Nil means the system clock.
	Clock clock.Clock
}

// Bucket is an overall token bucket shared by all keys: every When takes a
// token, and waits for it when the bucket is empty. Delays are reserved in
// order, so retries are spread at QPS once the burst is spent. It keeps no
// per-key state: Forget does nothing and NumRequeues is always 0.
type Bucket[K comparable] struct {
	mu     sync.Mutex
	clock  clock.Clock
	perTok time.Duration // time to earn one token
	burst  time.Duration // burst expressed as time: perTok·Burst
	// full is when the bucket is (or was) full. Tokens available at t
	// are (t - (full - burst)) / perTok, capped at Burst; a When takes one
	// by moving full forward by perTok.
	full time.Time
}

// NewBucket returns a Bucket limiter, full.
func NewBucket[K comparable](opts BucketOptions) *Bucket[K] {
	qps, burst := opts.QPS, opts.Burst
	if !(qps > 0) || qps > 1e9 {
		qps = 10
	}
	if burst <= 0 {
		burst = 100
	}
	b := &Bucket[K]{clock: clock.Or(opts.Clock)}
	b.perTok = time.Duration(float64(time.Second) / qps)
	if b.perTok <= 0 {
		b.perTok = 1
	}
	b.burst = b.perTok * time.Duration(burst)
	return b
}

// When takes a token and returns how long the caller must wait for it.
func (b *Bucket[K]) When(K) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock.Now()
	if b.full.IsZero() || b.full.Before(now) {
		b.full = now // refilled while idle
	}
	b.full = b.full.Add(b.perTok)
	// The token is ours once the bucket would hold at least burst-1
	// tokens less than full again, i.e. at full - burst.
	wait := b.full.Sub(now) - b.burst
	if wait < 0 {
		return 0
	}
	return wait
}

// Forget does nothing: the bucket is not per key.
func (b *Bucket[K]) Forget(K) {}

// NumRequeues returns 0: the bucket is not per key.
func (b *Bucket[K]) NumRequeues(K) int { return 0 }
