package workqueue

import (
	"sync"
	"sync/atomic"
)

// failures counts failures per key for the per-key limiters. Forget on a
// limiter that tracks nothing, the common case for a healthy controller
// that forgets every key it processes, takes no lock.
type failures[K comparable] struct {
	mu      sync.Mutex
	counts  map[K]int
	tracked atomic.Int64 // len(counts), readable without mu
}

// inc records one more failure of k and returns the count before it.
func (f *failures[K]) inc(k K) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.counts == nil {
		f.counts = make(map[K]int)
	}
	n, ok := f.counts[k]
	if !ok {
		f.tracked.Add(1)
	}
	f.counts[k] = n + 1
	return n
}

func (f *failures[K]) get(k K) int {
	if f.tracked.Load() == 0 {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts[k]
}

func (f *failures[K]) forget(k K) {
	if f.tracked.Load() == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.counts[k]; ok {
		delete(f.counts, k)
		if f.tracked.Add(-1) == 0 && len(f.counts) == 0 {
			f.counts = nil // release the memory of a past failure storm
		}
	}
}
