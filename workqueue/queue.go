package workqueue

import (
	"context"
	"sync"
	"time"
)

// Options configure a Queue. The zero Options are ready to use.
type Options[K comparable] struct {
	// RateLimiter decides the delay of AddRateLimited and keeps the
	// per-key retry counts behind NumRequeues and Forget. Nil means
	// DefaultRateLimiter on the queue's Clock.
	RateLimiter RateLimiter[K]
	// Clock is the time source for AddAfter, the default rate limiter and
	// metrics. Nil means the system clock.
	Clock Clock
	// Metrics, if not nil, receives the queue's events. Nil costs nothing.
	Metrics Metrics
}

// Sweeping: see Queue.tickets.
const (
	// sweepMin is how many stale tickets may pile up before a sweep.
	sweepMin = 4096
	// sweepRatio: a sweep also waits until stale tickets outnumber live
	// ones this many times, so that re-recording the live ones is cheap
	// per stale ticket dropped.
	sweepRatio = 4
	// releaseMin: a sweep that finds no live ticket replaces a map that
	// once held this many tickets, rather than clearing it, to give back
	// the memory of a past burst (a Go map never shrinks).
	releaseMin = 1 << 16
)

// waiter is a Get call parked until a key or shutdown arrives. The queue
// hands a key over by filling key and ok and then sending on ch, all under
// the lock, so a woken worker needs no second trip through the lock.
type waiter[K any] struct {
	ch     chan struct{} // capacity 1; a token means key and ok are set
	key    K
	ok     bool
	parked bool // in Queue.waiters; guarded by Queue.mu
}

// Queue is a work queue of keys, the hand-off point between event handlers,
// which add keys, and workers, which process them. See the package
// documentation for the guarantees and the worker's protocol.
//
// Create Queues with New; the zero Queue is not usable. All methods are safe
// for concurrent use.
type Queue[K comparable] struct {
	mu sync.Mutex
	// ready holds the keys waiting for a worker, oldest first. Each key is
	// in it at most once.
	ready fifo[K]
	// tickets deduplicates ready keys without being touched when a key
	// leaves ready: a key gets ticket pushed+1 when it enters ready, and
	// the ticket is live (the key is still in ready) while it is greater
	// than popped, the number of keys ever taken out of ready. Stale
	// tickets are dropped in bulk by sweep, which is far cheaper than one
	// random map access per Get on a large queue.
	tickets        map[K]uint64
	ticketsPeak    int // the most tickets held since the map was made
	pushed, popped uint64
	// inflight holds the keys handed to workers and not yet Done; the
	// value says whether the key was added again meanwhile.
	inflight map[K]bool
	waiters  []*waiter[K] // parked Gets, most recent last; non-empty only while ready is empty
	// in holds adds not yet taken in; it is empty and closed while
	// waiters is not empty, and after shutdown.
	in      intake[K]
	inSpare []K // the buffer in will fill next
	shut    bool
	drained chan struct{} // closed when inflight empties after shutdown

	waiterPool sync.Pool // *waiter[K]

	clock   Clock
	delayed delayHeap[K]
	timer   Timer     // the one timer behind AddAfter; nil until first needed
	armed   bool      // the timer is pending...
	armedAt time.Time // ...to go off at armedAt
	fire    func()    // q.fireTimer, bound once

	limiter RateLimiter[K]

	metrics   Metrics
	queuedAt  map[K]time.Time // metrics only: when a waiting key was added
	startedAt map[K]time.Time // metrics only: when a worker took a key
}

// New returns an empty, running Queue.
func New[K comparable](opts Options[K]) *Queue[K] {
	q := &Queue[K]{
		tickets:  make(map[K]uint64),
		inflight: make(map[K]bool),
		clock:    opts.Clock,
		limiter:  opts.RateLimiter,
		metrics:  opts.Metrics,
	}
	if q.clock == nil {
		q.clock = systemClock{}
	}
	if q.limiter == nil {
		q.limiter = DefaultRateLimiter[K](q.clock)
	}
	q.waiterPool.New = func() any { return &waiter[K]{ch: make(chan struct{}, 1)} }
	q.delayed.index = make(map[K]int)
	q.fire = q.fireTimer
	if q.metrics != nil {
		q.queuedAt = make(map[K]time.Time)
		q.startedAt = make(map[K]time.Time)
		q.metrics.Attach(q.inFlight)
	}
	return q
}

// Add marks k as needing processing.
//
// If k already waits for a worker, Add does nothing: queued keys are
// deduplicated and keep their place. If a worker is processing k, k is
// queued again when that worker calls Done, so the latest state is always
// processed after the latest Add. After shutdown, Add does nothing.
//
// While no Get is waiting, Add only appends k to a short intake, which the
// next Get or Len (or the Add that fills it) takes in, in order; so
// producers rarely wait for the queue's lock, and its bookkeeping runs in
// batches. The guarantees above hold as if Add had taken k in itself; only
// k's place in line is decided when it is taken in (so a key re-added
// while processing may come out ahead of keys added just after it, if its
// worker called Done in between). A queue with Metrics takes every key in
// at once, so that adds are timed as they happen.
func (q *Queue[K]) Add(k K) {
	if q.metrics != nil {
		// Metrics time adds as they happen: no batching.
		q.mu.Lock()
		defer q.mu.Unlock()
		q.addLocked(k)
		return
	}
	taken, full := q.in.offer(k)
	if taken && !full {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if taken {
		q.takeInLocked(false)
		return
	}
	// The intake is closed: a Get is parked (or the queue is shut down).
	// Take in whatever was left first, to keep the order of adds.
	q.takeInLocked(false)
	q.addLocked(k)
}

// takeInLocked processes the adds waiting in the intake, in order. With
// closeIfIdle, it closes the intake if it leaves no key ready, so that the
// caller can park a Get knowing that later adds come through q.mu.
func (q *Queue[K]) takeInLocked(closeIfIdle bool) {
	for {
		keys := q.in.swap(q.inSpare, closeIfIdle && q.ready.len() == 0)
		if keys == nil {
			return
		}
		for _, k := range keys {
			q.addLocked(k)
		}
		clear(keys)
		q.inSpare = keys
	}
}

func (q *Queue[K]) addLocked(k K) {
	if q.shut {
		return
	}
	if t, ok := q.tickets[k]; ok && t > q.popped {
		return // waiting in ready already
	}
	if again, ok := q.inflight[k]; ok {
		if !again {
			q.inflight[k] = true
			q.noteAdded(k)
		}
		return
	}
	q.noteAdded(k)
	q.readyLocked(k)
}

func (q *Queue[K]) noteAdded(k K) {
	if q.metrics != nil {
		q.metrics.Added()
		q.queuedAt[k] = q.clock.Now()
	}
}

// readyLocked makes k, which no worker holds, available to workers: it
// goes straight to a parked Get if there is one, else to the back of
// ready.
func (q *Queue[K]) readyLocked(k K) {
	if n := len(q.waiters); n > 0 {
		w := q.waiters[n-1]
		q.waiters[n-1] = nil
		q.waiters = q.waiters[:n-1]
		w.parked = false
		if n == 1 {
			q.in.setClosed(false) // no Get is parked any more
		}
		q.takeLocked(k)
		w.key, w.ok = k, true
		w.ch <- struct{}{} // capacity 1 and empty: never blocks
		return
	}
	q.pushed++
	q.tickets[k] = q.pushed
	q.ticketsPeak = max(q.ticketsPeak, len(q.tickets))
	q.ready.push(k)
	if q.metrics != nil {
		q.metrics.Depth(q.ready.len())
	}
}

// popLocked takes the oldest key out of ready and hands it to the caller.
func (q *Queue[K]) popLocked() K {
	k := q.ready.pop()
	q.popped++
	q.takeLocked(k)
	if q.metrics != nil {
		q.metrics.Depth(q.ready.len())
	}
	if live, stale := q.ready.len(), len(q.tickets)-q.ready.len(); stale >= sweepMin && stale >= sweepRatio*live {
		q.sweepLocked()
	}
	return k
}

// sweepLocked drops every stale ticket: it clears the map and records the
// tickets of the keys in ready again.
func (q *Queue[K]) sweepLocked() {
	if q.ready.len() == 0 && q.ticketsPeak >= releaseMin {
		q.tickets = make(map[K]uint64)
		q.ticketsPeak = 0
		return
	}
	clear(q.tickets)
	t := q.popped
	q.ready.each(func(k K) {
		t++
		q.tickets[k] = t
	})
}

// takeLocked records that a worker now holds k.
func (q *Queue[K]) takeLocked(k K) {
	q.inflight[k] = false
	if q.metrics != nil {
		now := q.clock.Now()
		if at, ok := q.queuedAt[k]; ok {
			q.metrics.Started(now.Sub(at))
			delete(q.queuedAt, k)
		} else {
			q.metrics.Started(0)
		}
		q.startedAt[k] = now
	}
}

// Get blocks until a key is available and hands it to the caller, who must
// call Done(k) once finished with it. No other Get returns k until then.
// Keys come out first in, first out, in the order the queue took them in
// (see Add).
//
// Get returns ok == false, and the zero K, once the queue is shut down or
// ctx is done. A Get that is already waiting when ctx ends may still
// return a key handed to it at that very moment; ok then is true and Done is
// owed as usual.
func (q *Queue[K]) Get(ctx context.Context) (k K, ok bool) {
	done := ctx.Done()
	if done != nil {
		select {
		case <-done:
			return k, false
		default:
		}
	}
	q.mu.Lock()
	if q.in.n.Load() > 0 || q.ready.len() == 0 {
		q.takeInLocked(true)
	}
	if q.ready.len() > 0 {
		k = q.popLocked()
		q.mu.Unlock()
		return k, true
	}
	if q.shut {
		q.mu.Unlock()
		return k, false
	}
	// The intake is closed now: adds come to us directly.
	w := q.waiterPool.Get().(*waiter[K])
	w.parked = true
	q.waiters = append(q.waiters, w)
	q.mu.Unlock()

	if done == nil {
		<-w.ch
	} else {
		select {
		case <-w.ch:
		case <-done:
			q.mu.Lock()
			if w.parked {
				q.unparkLocked(w)
				q.mu.Unlock()
				q.waiterPool.Put(w)
				return k, false
			}
			q.mu.Unlock()
			// A key or the shutdown was handed over under the lock
			// before we took it: the token is already in the channel.
			<-w.ch
		}
	}
	k, ok = w.key, w.ok
	var zero K
	w.key = zero
	q.waiterPool.Put(w)
	return k, ok
}

// unparkLocked removes w from the parked Gets.
func (q *Queue[K]) unparkLocked(w *waiter[K]) {
	for i, x := range q.waiters {
		if x == w {
			copy(q.waiters[i:], q.waiters[i+1:])
			q.waiters[len(q.waiters)-1] = nil
			q.waiters = q.waiters[:len(q.waiters)-1]
			break
		}
	}
	w.parked = false
	if len(q.waiters) == 0 && !q.shut {
		q.in.setClosed(false)
	}
}

// Done tells the queue that the worker holding k has finished with it. If
// k was added again meanwhile, it is queued now (at the back). Done for a key
// that no worker holds does nothing.
func (q *Queue[K]) Done(k K) {
	q.mu.Lock()
	defer q.mu.Unlock()
	again, ok := q.inflight[k]
	if !ok {
		return
	}
	delete(q.inflight, k)
	if q.metrics != nil {
		if at, ok := q.startedAt[k]; ok {
			q.metrics.Finished(q.clock.Now().Sub(at))
			delete(q.startedAt, k)
		}
	}
	if again && !q.shut {
		q.readyLocked(k)
	}
	if len(q.inflight) == 0 && q.drained != nil {
		close(q.drained)
		q.drained = nil
	}
}

// Len returns the number of keys waiting for a worker. It excludes keys
// being processed (even if added again) and keys waiting for an AddAfter
// delay. It is a snapshot for information, not for synchronisation.
func (q *Queue[K]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.takeInLocked(false)
	return q.ready.len()
}

// ShutDown stops the queue at once: Adds are ignored from now on, keys
// waiting for a worker or for a delay are dropped, and every Get, waiting
// or future, returns ok == false. Workers still holding keys may call Done
// as usual. ShutDown may be called more than once.
func (q *Queue[K]) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shutDownLocked()
}

// ShutDownWithDrain shuts the queue down like ShutDown, then waits until
// every key handed to a worker has been marked Done, or until ctx is done;
// in that case it returns a *DrainError that wraps the context's cause.
// Several calls may wait at once.
func (q *Queue[K]) ShutDownWithDrain(ctx context.Context) error {
	q.mu.Lock()
	q.shutDownLocked()
	if len(q.inflight) == 0 {
		q.mu.Unlock()
		return nil
	}
	if q.drained == nil {
		q.drained = make(chan struct{})
	}
	drained := q.drained
	q.mu.Unlock()

	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		q.mu.Lock()
		n := len(q.inflight)
		q.mu.Unlock()
		if n == 0 {
			return nil
		}
		return &DrainError{InFlight: n, Err: context.Cause(ctx)}
	}
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Queue[K]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shut
}

func (q *Queue[K]) shutDownLocked() {
	if q.shut {
		return
	}
	q.shut = true
	q.in.setClosed(true)
	q.in.swap(nil, false)
	q.inSpare = nil
	q.ready.clear()
	q.tickets = nil // nothing is added any more
	q.popped = q.pushed
	for k := range q.inflight {
		q.inflight[k] = false // forget pending re-adds
	}
	var zero K
	for _, w := range q.waiters {
		w.parked = false
		w.key, w.ok = zero, false
		w.ch <- struct{}{}
	}
	clear(q.waiters)
	q.waiters = nil
	q.stopTimerLocked()
	q.delayed.clear()
	if q.metrics != nil {
		clear(q.queuedAt)
		q.metrics.Depth(0)
	}
}

// inFlight reports the keys held by workers; see Metrics.Attach.
func (q *Queue[K]) inFlight() InFlight {
	q.mu.Lock()
	defer q.mu.Unlock()
	f := InFlight{Count: len(q.inflight)}
	if len(q.startedAt) == 0 {
		return f
	}
	now := q.clock.Now()
	for _, at := range q.startedAt {
		d := now.Sub(at)
		f.Total += d
		if d > f.Longest {
			f.Longest = d
		}
	}
	return f
}

// AddRateLimited adds k after the delay the rate limiter chooses for it,
// which counts as one more requeue of k. See AddAfter.
func (q *Queue[K]) AddRateLimited(k K) {
	q.AddAfter(k, q.limiter.When(k))
}

// Forget tells the rate limiter that k is no longer failing, resetting
// its requeue count and backoff. Call it when k was processed successfully
// (or given up on); it does not replace Done.
func (q *Queue[K]) Forget(k K) {
	q.limiter.Forget(k)
}

// NumRequeues returns how many times k was requeued through
// AddRateLimited since it was last forgotten.
func (q *Queue[K]) NumRequeues(k K) int {
	return q.limiter.NumRequeues(k)
}
