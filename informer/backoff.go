package informer

import (
	"time"

	"github.com/kubego/kubego/backoff"
)

// The reflector's backoff defaults, for zero fields of
// ReflectorOptions.Backoff and BackoffResetAfter: 800ms doubling up to 30s,
// each delay plus a random extra of up to the delay itself (so in [d, 2d)),
// starting again from 800ms after two minutes without a failure.
const (
	defaultBackoffInitial    = 800 * time.Millisecond
	defaultBackoffMax        = 30 * time.Second
	defaultBackoffFactor     = 2
	defaultBackoffJitter     = 1.0
	defaultBackoffResetAfter = 2 * time.Minute
)

// backoffConfig is a reflector's backoff with the defaults applied.
type backoffConfig struct {
	backoff.Backoff
	resetAfter time.Duration
}

// reflectorBackoff applies the defaults: a zero Initial, Max or
// resetAfter, and a Factor below 1, take the default; Jitter zero means
// the default and a negative Jitter means none; Max below Initial is
// Initial. Steps is ignored: a reflector never gives up.
func reflectorBackoff(b backoff.Backoff, resetAfter time.Duration) backoffConfig {
	if b.Initial <= 0 {
		b.Initial = defaultBackoffInitial
	}
	if b.Max <= 0 {
		b.Max = defaultBackoffMax
	}
	if b.Max < b.Initial {
		b.Max = b.Initial
	}
	if b.Factor < 1 {
		b.Factor = defaultBackoffFactor
	}
	if b.Jitter < 0 {
		b.Jitter = 0
	} else if b.Jitter == 0 {
		b.Jitter = defaultBackoffJitter
	}
	if resetAfter <= 0 {
		resetAfter = defaultBackoffResetAfter
	}
	return backoffConfig{Backoff: b, resetAfter: resetAfter}
}

// backoffState is the mutable part: the last base delay and when it was
// handed out. Not safe for concurrent use (it lives inside a reflector state).
type backoffState struct {
	cfg     backoffConfig
	rand    func() float64 // the jitter's draw; nil means math/rand/v2
	current time.Duration  // base delay of the last failure, 0 before any
	last    time.Time      // when the last failure happened
}

// next records a failure at now and returns how long to wait.
func (s *backoffState) next(now time.Time) time.Duration {
	switch {
	case s.current == 0 || now.Sub(s.last) >= s.cfg.resetAfter:
		s.current = s.cfg.Initial
	default:
		s.current = s.cfg.Next(s.current)
	}
	s.last = now
	if s.rand != nil {
		return s.cfg.JitteredBy(s.current, s.rand())
	}
	return s.cfg.Jittered(s.current)
}

// watchLived records that a watch stayed open for d before it ended. A
// watch that lived at least as long as the delay before it (and at least
// Initial) shows a server healthy enough to start the backoff over: under
// faults every few seconds the delay then stays near their interval
// instead of climbing to Max, while a server that breaks every watch at
// once still backs off as before.
func (s *backoffState) watchLived(d time.Duration) {
	if s.current > 0 && d >= max(s.current, s.cfg.Initial) {
		s.current = 0
	}
}
