package workqueue

import (
	"context"
	"hash/maphash"
	"runtime"
	"sync"
	"time"

	"github.com/kubego/kubego/clock"
)

// Options configure a Queue. The zero Options are ready to use.
type Options[K comparable] struct {
	// RateLimiter decides the delay of AddRateLimited and keeps the
	// per-key retry counts behind NumRequeues and Forget. Nil means
	// DefaultRateLimiter on the queue's Clock.
	RateLimiter RateLimiter[K]
	// Clock is the time source for AddAfter, the default rate limiter and
	// metrics. Nil means the system clock.
	Clock clock.Clock
	// Metrics, if not nil, receives the queue's events. Nil costs nothing.
	Metrics Metrics
	// Lane, if not nil, sorts the waiting keys into lanes by its result,
	// and Get serves the lanes in turn (round robin), within each lane
	// first in, first out: a lane with a long backlog (one cluster's
	// initial list, one tenant flooding its namespace) then delays a key
	// of another lane by at most one key per lane with work, not by its
	// whole backlog. Low-priority keys (AddLow) have lanes of their own,
	// served in turn too. Nil means one lane: strict first in, first out.
	//
	// Lane is called under the queue's lock, once each time a key starts
	// waiting: it must be fast, must not call the queue, and must give
	// the same result for the same key.
	Lane func(K) string
}

// heldSlot is a key held by a worker: its slot and tag (see table).
type heldSlot struct{ tag, slot uint32 }

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
	// keys knows the state of every waiting or held key. Add and Done
	// hash their key before taking mu, so that under mu the table only
	// compares.
	keys table[K]
	// held lists the slots of the keys handed to workers and not yet
	// Done, with their tags: Done finds its key here, in a list as short
	// as the number of busy workers, rather than in the index.
	held []heldSlot
	// ready holds the slots (in keys) of the keys waiting for a worker,
	// oldest first in each lane (one lane without Options.Lane). Each
	// key is in it at most once.
	ready lanes[uint32]
	// low holds the keys added with AddLow and not taken yet, oldest
	// first in each lane, outside the table: lowSeq maps each such key to the number
	// of its one live entry in low (and its time of adding, for metrics);
	// an entry with another number is stale (its key was promoted by Add,
	// or taken and added again).
	low     lanes[lowEntry[K]]
	lowSeq  map[K]lowMark
	lowNext uint64
	waiters []*waiter[K] // parked Gets, most recent last; non-empty only while ready is empty
	// in holds adds not yet taken in; it is empty and closed while
	// waiters is not empty, and after shutdown.
	in       intake[hashed[K]]
	inSpare  []hashed[K] // the buffer in will fill next
	shut     bool
	draining bool          // shut down by ShutDownWithDrain: ready keys are still handed out
	drained  chan struct{} // closed when, after shutdown, no key is held or ready any more

	waiterPool sync.Pool // *waiter[K]

	clock   clock.Clock
	delayed delayHeap[K]
	timer   clock.Timer // the one timer behind AddAfter; nil until first needed
	armed   bool        // the timer is pending...
	armedAt time.Time   // ...to go off at armedAt
	fire    func()      // q.fireTimer, bound once

	limiter RateLimiter[K]
	lane    func(K) string // Options.Lane

	metrics Metrics
	// epoch is the queue's clock at New, with metrics: the times kept
	// for them (keys.times, lowMark.at) count nanoseconds from it.
	epoch time.Time
}

// New returns an empty, running Queue.
func New[K comparable](opts Options[K]) *Queue[K] {
	q := &Queue[K]{
		clock:   clock.Or(opts.Clock),
		limiter: opts.RateLimiter,
		metrics: opts.Metrics,
		lane:    opts.Lane,
	}
	q.ready.fair = q.lane != nil
	q.low.fair = q.lane != nil
	q.keys.seed = maphash.MakeSeed()
	if q.limiter == nil {
		q.limiter = DefaultRateLimiter[K](q.clock)
	}
	q.waiterPool.New = func() any { return &waiter[K]{ch: make(chan struct{}, 1)} }
	q.delayed.index = make(map[K]int)
	q.fire = q.fireTimer
	if q.metrics != nil {
		q.epoch = q.clock.Now()
		q.keys.withTimes = true
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
	h := q.keys.hash(k)
	if q.metrics != nil {
		// Metrics time adds as they happen: no batching.
		q.mu.Lock()
		defer q.mu.Unlock()
		q.addLocked(h)
		return
	}
	taken, full := q.in.offer(h)
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
	q.addLocked(h)
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
		for _, h := range keys {
			q.addLocked(h)
		}
		clear(keys)
		q.inSpare = keys
	}
}

func (q *Queue[K]) addLocked(h hashed[K]) {
	if q.shut {
		return
	}
	i, ok := q.keys.lookup(h)
	if !ok {
		at, promoted := q.promoteLocked(h.key)
		if !promoted {
			at = q.noteAdded()
		}
		q.readyLocked(q.insertLocked(h, at))
		return
	}
	q.addHeldLocked(i)
	// Otherwise it waits already, or is due to wait again after Done.
}

// addHeldLocked marks the key of slot i, if a worker holds it, as added
// again: it waits again after Done.
func (q *Queue[K]) addHeldLocked(i uint32) {
	if sl := q.keys.at(i); sl.state == stateHeld {
		sl.state = stateHeldAgain
		at := q.noteAdded()
		if q.metrics != nil {
			q.keys.timesAt(i).queued = at
		}
	}
}

// insertLocked puts h.key, which is not in the table, into it as queued
// (but not yet in ready), with metrics waiting since at, and returns its
// slot number.
func (q *Queue[K]) insertLocked(h hashed[K], at int64) uint32 {
	if q.keys.full() {
		q.reindexLocked()
	}
	i := q.keys.insert(h, stateQueued)
	if q.metrics != nil {
		q.keys.timesAt(i).queued = at
	}
	return i
}

// noteAdded reports an add to the metrics and returns its time (see now).
func (q *Queue[K]) noteAdded() int64 {
	if q.metrics == nil {
		return 0
	}
	q.metrics.Added()
	return q.now()
}

// now returns the time on the queue's clock as nanoseconds since its
// epoch: the form in which a queue with metrics keeps its keys' times.
func (q *Queue[K]) now() int64 {
	return int64(q.clock.Now().Sub(q.epoch))
}

// readyLocked makes the key in slot i, which no worker holds, available to
// workers: it goes straight to a parked Get if there is one, else to the
// back of ready.
func (q *Queue[K]) readyLocked(i uint32) {
	if n := len(q.waiters); n > 0 {
		w := q.waiters[n-1]
		q.waiters[n-1] = nil
		q.waiters = q.waiters[:n-1]
		w.parked = false
		if n == 1 {
			q.in.setClosed(false) // no Get is parked any more
		}
		w.key, w.ok = q.takeLocked(i), true
		w.ch <- struct{}{} // capacity 1 and empty: never blocks
		return
	}
	q.keys.at(i).state = stateQueued
	q.ready.push(q.laneOf(q.keys.at(i).key), i)
	if q.metrics != nil {
		q.metrics.Depth(q.depthLocked())
	}
}

// laneOf returns k's lane, "" without Options.Lane.
func (q *Queue[K]) laneOf(k K) string {
	if q.lane == nil {
		return ""
	}
	return q.lane(k)
}

// reindexLocked rebuilds the table's index from the live keys: those in
// ready and those held.
func (q *Queue[K]) reindexLocked() {
	q.keys.rebuild(func(yield func(uint32)) {
		q.ready.each(yield)
		for _, h := range q.held {
			yield(h.slot)
		}
	})
}

// popLocked takes the oldest key out of ready and hands it to the caller.
func (q *Queue[K]) popLocked() K {
	k := q.takeLocked(q.ready.pop())
	if q.metrics != nil {
		q.metrics.Depth(q.depthLocked())
	}
	return k
}

// takeLocked records that a worker now holds the key in slot i, which is
// not held, and returns the key.
func (q *Queue[K]) takeLocked(i uint32) K {
	sl := q.keys.at(i)
	sl.state = stateHeld
	q.held = append(q.held, heldSlot{sl.aux, i})
	if q.metrics != nil {
		now := q.now()
		ts := q.keys.timesAt(i)
		q.metrics.Started(time.Duration(now - ts.queued))
		ts.started = now
	}
	return sl.key
}

// Get blocks until a key is available and hands it to the caller, who must
// call Done(k) once finished with it. No other Get returns k until then.
// Keys come out first in, first out, in the order the queue took them in
// (see Add; with Options.Lane, each lane so and the lanes in turn), those
// added with AddLow only when no other key waits.
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
	if q.ready.len() == 0 && q.in.n.Load() == 0 && !q.shut && len(q.waiters) == 0 && len(q.lowSeq) == 0 {
		// Nothing to take: before parking, which costs a wake-up per key
		// handed over later, let the producers run once; busy producers
		// will have left keys in the intake by the time we are back.
		q.mu.Unlock()
		runtime.Gosched()
		q.mu.Lock()
	}
	if q.in.n.Load() > 0 || q.ready.len() == 0 {
		q.takeInLocked(len(q.lowSeq) == 0)
	}
	if q.ready.len() > 0 {
		k = q.popLocked()
		q.mu.Unlock()
		return k, true
	}
	if len(q.lowSeq) > 0 {
		k = q.popLowLocked()
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
// It looks k up among the keys held at that moment, so its cost grows with
// how many keys workers hold at once.
func (q *Queue[K]) Done(k K) {
	tag := uint32(q.keys.hash(k).hash)
	q.mu.Lock()
	defer q.mu.Unlock()
	j := -1
	for x, h := range q.held {
		if h.tag == tag && q.keys.at(h.slot).key == k {
			j = x
			break
		}
	}
	if j < 0 {
		return // not held
	}
	i := q.held[j].slot
	last := len(q.held) - 1
	q.held[j] = q.held[last]
	q.held = q.held[:last]
	sl := q.keys.at(i)
	if q.metrics != nil {
		q.metrics.Finished(time.Duration(q.now() - q.keys.timesAt(i).started))
	}
	if sl.state == stateHeldAgain && (!q.shut || q.draining) {
		q.readyLocked(i)
	} else {
		q.keys.release(i)
	}
	q.closeIfDrainedLocked()
}

// closeIfDrainedLocked wakes the shutdown waits once nothing is left.
func (q *Queue[K]) closeIfDrainedLocked() {
	if q.drained != nil && q.drainedLocked() {
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
	return q.ready.len() + len(q.lowSeq)
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

// ShutDownAndWait shuts the queue down like ShutDown (keys still waiting
// for a worker are dropped), then waits until every key handed to a worker
// has been marked Done, or until ctx is done; in that case it returns a
// *DrainError that wraps the context's cause. Several calls may wait at
// once. A controller uses it to stop promptly while letting the
// reconciles in flight finish.
func (q *Queue[K]) ShutDownAndWait(ctx context.Context) error {
	q.mu.Lock()
	q.shutDownLocked()
	return q.waitDrainedLocked(ctx)
}

// ShutDownWithDrain stops the queue from taking new keys and waits until
// the keys it holds have been worked off: Adds are ignored from now on and
// keys waiting for a delay (AddAfter, AddRateLimited) are dropped, but Get
// keeps handing out the keys that were already waiting, and a key added
// again while a worker held it is handed out again after its Done. Get
// returns ok == false once no key waits. ShutDownWithDrain returns when
// no key waits and none is held, or when ctx is done; in that case it
// returns a *DrainError that wraps the context's cause. Workers must keep
// calling Get until it returns ok == false, or the drain cannot finish.
//
// This is client-go's meaning of the name; ShutDownAndWait drops the
// waiting keys instead.
func (q *Queue[K]) ShutDownWithDrain(ctx context.Context) error {
	q.mu.Lock()
	if !q.shut {
		// Adds made before this call count: take them in first.
		q.takeInLocked(false)
		q.draining = true
	}
	q.shutDownLocked()
	return q.waitDrainedLocked(ctx)
}

// waitDrainedLocked waits, after shutdown, until no key is held or ready.
// It is called with q.mu held and releases it.
func (q *Queue[K]) waitDrainedLocked(ctx context.Context) error {
	if q.drainedLocked() {
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
		held, waiting := len(q.held), q.ready.len()+len(q.lowSeq)
		q.mu.Unlock()
		if held == 0 && waiting == 0 {
			return nil
		}
		return &DrainError{InFlight: held, Waiting: waiting, Err: context.Cause(ctx)}
	}
}

// drainedLocked reports whether a shut-down queue has nothing left: no key
// held and none waiting.
func (q *Queue[K]) drainedLocked() bool {
	return len(q.held) == 0 && q.ready.len() == 0 && len(q.lowSeq) == 0
}

// ShuttingDown reports whether ShutDown, ShutDownAndWait or
// ShutDownWithDrain was called.
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
	if !q.draining {
		// Drop the waiting keys and pending re-adds; keep the held keys,
		// for Done.
		q.ready.each(q.keys.release)
		q.ready.clear()
		q.low.clear()
		q.lowSeq = nil
		for _, h := range q.held {
			q.keys.at(h.slot).state = stateHeld
		}
	}
	// Parked Gets exist only while no key is ready: they end now.
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
		q.metrics.Depth(0)
	}
}

// inFlight reports the keys held by workers; see Metrics.Attach.
func (q *Queue[K]) inFlight() InFlight {
	q.mu.Lock()
	defer q.mu.Unlock()
	f := InFlight{Count: len(q.held)}
	if len(q.held) == 0 {
		return f
	}
	now := q.now()
	for _, h := range q.held {
		d := time.Duration(now - q.keys.timesAt(h.slot).started)
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
