package rest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kubego/kubego/clock"
)

// ErrInvalidRateLimit is wrapped by the error NewTokenBucket returns for
// unusable options.
var ErrInvalidRateLimit = errors.New("rest: invalid rate limit")

// TokenBucketOptions configure NewTokenBucket.
type TokenBucketOptions struct {
	// QPS is the sustained rate of requests per second (required, > 0).
	QPS float64
	// Burst is how many requests may go at once after a quiet spell. Zero
	// means max(1, QPS rounded up).
	Burst int
	// Clock is the time source; nil means the wall clock.
	Clock clock.Clock
}

// TokenBucket is a client-side RateLimiter: a bucket of Burst tokens,
// refilled at QPS per second, one token per request. It starts full. A
// Wait that cannot take a token at once reserves the next one and sleeps
// until it is due, so waiters are served in order; a Wait whose context
// ends first returns its reservation and ctx.Err(). It is safe for
// concurrent use; one TokenBucket shared by several Configs limits them
// together.
//
// Give it to Config.RateLimiter. Client-side throttling is off by
// default: kube-apiserver's API Priority and Fairness shares its capacity
// between clients and answers 429 with Retry-After when a priority level
// is full, which the client honours. A bucket is for a client that must
// not exceed a rate whatever the server would accept.
type TokenBucket struct {
	qps   float64
	burst float64
	clock clock.Clock

	mu     sync.Mutex
	tokens float64 // may be negative: tokens reserved by waiters
	last   time.Time
}

var _ RateLimiter = (*TokenBucket)(nil)

// NewTokenBucket returns a full bucket. A QPS that is not positive (or not
// a number), or a negative Burst, is an error wrapping ErrInvalidRateLimit.
func NewTokenBucket(opts TokenBucketOptions) (*TokenBucket, error) {
	if !(opts.QPS > 0) || opts.QPS > 1e9 {
		return nil, fmt.Errorf("%w: QPS %v must be positive", ErrInvalidRateLimit, opts.QPS)
	}
	if opts.Burst < 0 {
		return nil, fmt.Errorf("%w: Burst %d is negative", ErrInvalidRateLimit, opts.Burst)
	}
	burst := float64(opts.Burst)
	if burst == 0 {
		burst = max(1, float64(int64(opts.QPS+0.999999)))
	}
	c := clock.Or(opts.Clock)
	return &TokenBucket{qps: opts.QPS, burst: burst, clock: c, tokens: burst, last: c.Now()}, nil
}

// Wait takes a token, sleeping until one is due. It returns ctx.Err() if
// ctx ends first (or has ended already), without taking one.
func (b *TokenBucket) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b.mu.Lock()
	now := b.clock.Now()
	if elapsed := now.Sub(b.last); elapsed > 0 {
		b.tokens = min(b.burst, b.tokens+elapsed.Seconds()*b.qps)
		b.last = now
	}
	b.tokens--
	var wait time.Duration
	if b.tokens < 0 {
		wait = time.Duration(-b.tokens / b.qps * float64(time.Second))
	}
	b.mu.Unlock()
	if wait <= 0 {
		return nil
	}
	if err := clock.Sleep(ctx, b.clock, wait); err != nil {
		b.mu.Lock()
		b.tokens++
		b.mu.Unlock()
		return err
	}
	return nil
}
