package workqueue

import "time"

// AddAfter adds k once d has elapsed on the queue's clock; d <= 0 adds it
// now. While k waits, further AddAfter calls for k keep only the earliest
// time. A waiting key is not visible to Get or Len, and a plain Add of k in
// the meantime does not cancel the wait: k is then added again when its
// time comes (and deduplicated if it is still queued).
//
// All waiting keys share one timer, armed for the earliest of them; firing
// it adds every key that is due. ShutDown drops waiting keys. Every call
// counts as a retry in Metrics.
func (q *Queue[K]) AddAfter(k K, d time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shut {
		return
	}
	if q.metrics != nil {
		q.metrics.Retried()
	}
	if d <= 0 {
		q.takeInLocked(false)
		q.addLocked(q.keys.hash(k))
		return
	}
	now := q.clock.Now()
	if q.delayed.schedule(k, now.Add(d)) {
		q.armLocked(now)
	}
}

// fireTimer runs when the timer goes off: it adds every due key and re-arms
// the timer for the next one. A call from a timer that was re-armed
// meanwhile finds nothing due, or only due keys, so it is harmless.
func (q *Queue[K]) fireTimer() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.armed = false
	if q.shut {
		return
	}
	now := q.clock.Now()
	q.takeInLocked(false)
	for q.delayed.len() > 0 && !q.delayed.peek().After(now) {
		q.addLocked(q.keys.hash(q.delayed.pop()))
	}
	q.armLocked(now)
}

// armLocked makes the timer go off when the earliest waiting key is due,
// or stops it if no key waits.
func (q *Queue[K]) armLocked(now time.Time) {
	if q.delayed.len() == 0 {
		q.stopTimerLocked()
		return
	}
	next := q.delayed.peek()
	if q.armed && q.armedAt.Equal(next) {
		return
	}
	d := next.Sub(now)
	if q.timer == nil {
		q.timer = q.clock.AfterFunc(d, q.fire)
	} else {
		q.timer.Reset(d)
	}
	q.armed, q.armedAt = true, next
}

func (q *Queue[K]) stopTimerLocked() {
	if q.armed {
		q.timer.Stop()
		q.armed = false
	}
}

// timed is a key waiting in the delay heap until at.
type timed[K any] struct {
	at  time.Time
	key K
}

// delayHeap is a binary min-heap of waiting keys ordered by time, with an
// index so that each key is in it at most once. It is not safe for
// concurrent use; the zero delayHeap needs index set before use.
type delayHeap[K comparable] struct {
	items []timed[K]
	index map[K]int // key → position in items
}

func (h *delayHeap[K]) len() int { return len(h.items) }

// peek returns the earliest time. h must not be empty.
func (h *delayHeap[K]) peek() time.Time { return h.items[0].at }

// schedule makes k due at at, or keeps its earlier time if it already
// waits. It reports whether k's time became the heap's earliest.
func (h *delayHeap[K]) schedule(k K, at time.Time) bool {
	i, ok := h.index[k]
	if ok {
		if !at.Before(h.items[i].at) {
			return false
		}
		h.items[i].at = at
	} else {
		i = len(h.items)
		h.items = append(h.items, timed[K]{at: at, key: k})
		h.index[k] = i
	}
	return h.up(i) == 0
}

// pop removes the earliest key and returns it. h must not be empty.
func (h *delayHeap[K]) pop() K {
	k := h.items[0].key
	last := len(h.items) - 1
	h.swap(0, last)
	h.items[last] = timed[K]{}
	h.items = h.items[:last]
	delete(h.index, k)
	switch {
	case last > 0:
		h.down(0)
	case cap(h.items) > 1024:
		// Give back the memory of a past burst.
		h.items = nil
		h.index = make(map[K]int)
	}
	return k
}

// clear drops every waiting key and the memory behind them.
func (h *delayHeap[K]) clear() {
	h.items = nil
	clear(h.index)
}

// up moves the item at i towards the root while it is earlier than its
// parent, and returns its final position.
func (h *delayHeap[K]) up(i int) int {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.items[i].at.Before(h.items[parent].at) {
			break
		}
		h.swap(i, parent)
		i = parent
	}
	return i
}

// down moves the item at i away from the root while a child is earlier.
func (h *delayHeap[K]) down(i int) {
	n := len(h.items)
	for {
		least := i
		if l := 2*i + 1; l < n && h.items[l].at.Before(h.items[least].at) {
			least = l
		}
		if r := 2*i + 2; r < n && h.items[r].at.Before(h.items[least].at) {
			least = r
		}
		if least == i {
			return
		}
		h.swap(i, least)
		i = least
	}
}

func (h *delayHeap[K]) swap(i, j int) {
	if i == j {
		return
	}
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.index[h.items[i].key] = i
	h.index[h.items[j].key] = j
}
