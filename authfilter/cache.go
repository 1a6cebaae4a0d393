package authfilter

import (
	"sync"
	"time"

	"github.com/kubego/kubego/clock"
)

// cache remembers values until they expire, holding at most max entries:
// when full, expired entries are dropped first, then an arbitrary one.
type cache[V any] struct {
	clock clock.Clock
	max   int

	mu      sync.Mutex
	entries map[string]entry[V]
}

type entry[V any] struct {
	value   V
	expires time.Time
}

func newCache[V any](c clock.Clock, max int) *cache[V] {
	return &cache[V]{clock: c, max: max, entries: make(map[string]entry[V])}
}

func (c *cache[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		var zero V
		return zero, false
	}
	if !c.clock.Now().Before(e.expires) {
		delete(c.entries, key)
		var zero V
		return zero, false
	}
	return e.value, true
}

func (c *cache[V]) put(key string, v V, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.max {
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		}
		for k := range c.entries {
			if len(c.entries) < c.max {
				break
			}
			delete(c.entries, k)
		}
	}
	c.entries[key] = entry[V]{value: v, expires: now.Add(ttl)}
}

func (c *cache[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
