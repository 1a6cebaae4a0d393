// Package clocktest has a clock.Clock for tests whose time moves only when
// the test says so, for code that cannot run under testing/synctest (or
// tests that want to step time exactly).
package clocktest

import (
	"sync"
	"time"

	"github.com/kubego/kubego/clock"
)

// Manual is a clock.Clock whose time stands still until Advance moves it.
// Advance runs the AfterFunc calls that fall due, in time order, on the
// caller's goroutine (not in goroutines of their own, unlike time.AfterFunc),
// so a test knows they have run when Advance returns. It is safe for
// concurrent use.
type Manual struct {
	mu      sync.Mutex
	now     time.Time
	timers  []*timer
	created int
}

type timer struct {
	c      *Manual
	at     time.Time
	f      func()
	active bool
}

// New returns a Manual clock reading start.
func New(start time.Time) *Manual { return &Manual{now: start} }

// Now returns the clock's current time.
func (c *Manual) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc arranges for f to run when Advance moves the clock d or more
// past now (on the next Advance when d <= 0).
func (c *Manual) AfterFunc(d time.Duration, f func()) clock.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.created++
	t := &timer{c: c, at: c.now.Add(d), f: f, active: true}
	c.timers = append(c.timers, t)
	return t
}

// Advance moves the clock d forward. Each timer that falls due runs once,
// earliest first, with the clock reading its due time; a timer armed by one
// of them runs too if it falls due within d.
func (c *Manual) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var next *timer
		for _, t := range c.timers {
			if t.active && !t.at.After(end) && (next == nil || t.at.Before(next.at)) {
				next = t
			}
		}
		if next == nil {
			c.now = end
			c.mu.Unlock()
			return
		}
		if next.at.After(c.now) {
			c.now = next.at
		}
		next.active = false
		c.mu.Unlock()
		next.f()
	}
}

// Created returns how many times AfterFunc was called.
func (c *Manual) Created() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.created
}

// Pending returns how many timers are armed.
func (c *Manual) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if t.active {
			n++
		}
	}
	return n
}

func (t *timer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.active = false
	return was
}

func (t *timer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.active
	t.at, t.active = t.c.now.Add(d), true
	return was
}
