package informer

import (
	"math/rand/v2"
	"time"
)

// Backoff configures the delay between failed attempts: Initial, doubled
// (times Factor) after each consecutive failure up to Max, plus a random
// jitter of up to Jitter×delay. After ResetAfter without a failure the delay
// starts again from Initial. Zero fields take the defaults: 800ms, 30s,
// factor 2, jitter 1.0 (delay in [d, 2d)), reset after 2 minutes; a negative
// Jitter disables jitter.
type Backoff struct {
	Initial    time.Duration
	Max        time.Duration
	Factor     float64
	Jitter     float64
	ResetAfter time.Duration
	// Rand returns a float in [0,1); nil uses math/rand/v2. Tests set it to
	// make delays exact.
	Rand func() float64
}

func (b Backoff) withDefaults() Backoff {
	if b.Initial <= 0 {
		b.Initial = 800 * time.Millisecond
	}
	if b.Max <= 0 {
		b.Max = 30 * time.Second
	}
	if b.Max < b.Initial {
		b.Max = b.Initial
	}
	if b.Factor < 1 {
		b.Factor = 2
	}
	if b.Jitter < 0 {
		b.Jitter = 0
	} else if b.Jitter == 0 {
		b.Jitter = 1
	}
	if b.ResetAfter <= 0 {
		b.ResetAfter = 2 * time.Minute
	}
	if b.Rand == nil {
		b.Rand = rand.Float64
	}
	return b
}

// backoffState is the mutable part: the last base delay and when it was
// handed out. Not safe for concurrent use (it lives inside a reflector state).
type backoffState struct {
	cfg     Backoff
	current time.Duration // base delay of the last failure, 0 before any
	last    time.Time     // when the last failure happened
}

// next records a failure at now and returns how long to wait.
func (s *backoffState) next(now time.Time) time.Duration {
	switch {
	case s.current == 0 || now.Sub(s.last) >= s.cfg.ResetAfter:
		s.current = s.cfg.Initial
	default:
		s.current = min(time.Duration(float64(s.current)*s.cfg.Factor), s.cfg.Max)
	}
	s.last = now
	return s.current + time.Duration(s.cfg.Jitter*s.cfg.Rand()*float64(s.current))
}
