package backoff

import (
	"math"
	"math/rand/v2"
	"time"
)

// Backoff describes the delay after each consecutive failure: Initial after
// the first, multiplied by Factor after each further one, capped at Max,
// plus a random extra of up to Jitter times the delay. The zero value means
// "no delay"; users fill zero fields with their own defaults.
type Backoff struct {
	// Initial is the delay after the first failure.
	Initial time.Duration
	// Max caps the delay before jitter; zero means no cap. With jitter a
	// delay may exceed Max by up to Jitter×Max, which keeps clients that
	// all reached the cap from retrying in step.
	Max time.Duration
	// Factor multiplies the delay after each further failure; below 1 means
	// 1 (a constant delay).
	Factor float64
	// Jitter adds a random extra of up to Jitter×delay; zero or negative
	// means none.
	Jitter float64
	// Steps is the number of attempts, the first included, made by a
	// caller that gives up (client.RetryOnConflict). Callers that never
	// give up ignore it.
	Steps int
}

// Delay returns the delay after the n-th consecutive failure (n from 1),
// without jitter: Initial multiplied by Factor n-1 times, each product
// truncated to whole nanoseconds, capped at Max. It never overflows: a
// delay that would exceed the largest Duration is that Duration. n < 1 is
// taken as 1.
func (b Backoff) Delay(n int) time.Duration {
	d := b.Initial
	if b.Max > 0 && d > b.Max {
		return b.Max
	}
	if b.Factor == 2 && d >= 0 {
		return doubled(d, b.Max, n-1)
	}
	for i := 1; i < n; i++ {
		next := b.Next(d)
		if next == d {
			break // at the cap, or a factor of 1
		}
		d = next
	}
	return d
}

// doubled is d·2^exp capped at max (no cap when max is zero), in integer
// arithmetic: the same as exp steps of Next with a Factor of 2 (doubling a
// float64 is exact), without the loop.
func doubled(d, max time.Duration, exp int) time.Duration {
	if max <= 0 {
		max = math.MaxInt64
	}
	switch {
	case exp <= 0:
		return d
	case d == 0:
		return 0
	case exp >= 63 || d > max>>uint(exp):
		return max
	}
	return d << uint(exp)
}

// Next returns the delay that follows d: d×Factor (truncated to whole
// nanoseconds), capped at Max and at the largest Duration.
func (b Backoff) Next(d time.Duration) time.Duration {
	f := b.Factor
	if f < 1 {
		f = 1
	}
	p := float64(d) * f
	var next time.Duration
	if p >= math.MaxInt64 {
		next = math.MaxInt64
	} else {
		next = time.Duration(p)
	}
	if b.Max > 0 && next > b.Max {
		next = b.Max
	}
	return next
}

// Jittered returns d plus a random extra in [0, Jitter×d). With Jitter zero
// or negative it returns d.
func (b Backoff) Jittered(d time.Duration) time.Duration {
	if b.Jitter <= 0 {
		return d
	}
	return b.JitteredBy(d, rand.Float64())
}

// JitteredBy returns d plus Jitter×r×d, for an r in [0,1) the caller
// chose (Jittered draws it at random; a caller with its own source of
// randomness, or a test that wants an exact delay, passes it). With Jitter
// zero or negative it returns d.
func (b Backoff) JitteredBy(d time.Duration, r float64) time.Duration {
	if b.Jitter <= 0 {
		return d
	}
	extra := b.Jitter * r * float64(d)
	if extra >= float64(math.MaxInt64-d) {
		return math.MaxInt64
	}
	return d + time.Duration(extra)
}
