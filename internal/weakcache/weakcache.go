// Package weakcache shares one value per key among the holders of that key,
// for as long as any of them still uses it: entries are weak pointers, so a
// value no one references is collected and its entry removed, and the cache
// never holds more than one entry per key in use. It is how kubego shares
// one HTTP transport per connection setting and one exec plugin per
// configuration across the clients of a process.
package weakcache

import (
	"runtime"
	"sync"
	"weak"
)

// Map holds weak references to values of type *V by key. The zero value is
// not usable; make one with New. Its methods are safe for concurrent use.
type Map[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]weak.Pointer[V]
}

// New returns an empty Map.
func New[K comparable, V any]() *Map[K, V] {
	return &Map[K, V]{m: make(map[K]weak.Pointer[V])}
}

// Get returns the live value for k, or calls build, remembers its result
// and returns it. build runs with the Map locked, so two callers never
// build for the same key at once; it must not use the Map. An error from
// build is returned and nothing is remembered.
func (c *Map[K, V]) Get(k K, build func() (*V, error)) (*V, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if wp, ok := c.m[k]; ok {
		if v := wp.Value(); v != nil {
			return v, nil
		}
	}
	v, err := build()
	if err != nil {
		return nil, err
	}
	c.m[k] = weak.Make(v)
	runtime.AddCleanup(v, c.forget, k)
	return v, nil
}

// forget removes k once its value has been collected, unless a new value
// took its place meanwhile.
func (c *Map[K, V]) forget(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.m[k]; ok && cur.Value() == nil {
		delete(c.m, k)
	}
}

// Len returns the number of entries, collected values not yet removed
// included.
func (c *Map[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
