package informer

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Handler receives an informer's events. Each registered handler has its own
// goroutine and its own unbounded buffer: callbacks of one handler run one at
// a time, in the order the cache applied the changes, and never on the
// informer's goroutine, so a slow handler delays only itself. A compact
// cache's handler gets objects of its own; a decoded cache's objects are
// shared with the cache and other handlers: read-only (DeepCopy first).
//
// Callbacks should be quick (typically: enqueue a key in a workqueue). A
// panic in a callback is not recovered.
type Handler[T Object] interface {
	// OnAdd: a new object. initial is true for objects of the first full
	// state and for the synthetic adds of a handler registered after sync.
	OnAdd(obj T, initial bool)
	// OnUpdate: a changed object, a relisted one (old may equal new) or a
	// periodic resync (old == new).
	OnUpdate(old, new T)
	// OnDelete: a deleted object. If finalStateUnknown, the deletion was
	// noticed by a relist and obj is the last state the cache held; the
	// object may have changed before it was deleted.
	OnDelete(obj T, finalStateUnknown bool)
}

// HandlerFuncs adapts functions to a [Handler]; nil functions are skipped.
type HandlerFuncs[T Object] struct {
	AddFunc    func(obj T, initial bool)
	UpdateFunc func(old, new T)
	DeleteFunc func(obj T, finalStateUnknown bool)
}

// OnAdd calls AddFunc.
func (f HandlerFuncs[T]) OnAdd(obj T, initial bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj, initial)
	}
}

// OnUpdate calls UpdateFunc.
func (f HandlerFuncs[T]) OnUpdate(old, new T) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(old, new)
	}
}

// OnDelete calls DeleteFunc.
func (f HandlerFuncs[T]) OnDelete(obj T, finalStateUnknown bool) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj, finalStateUnknown)
	}
}

// HandlerOptions configures one handler registration. The zero value is
// valid: no resync.
type HandlerOptions struct {
	// ResyncPeriod, if positive, re-delivers every cached object to this
	// handler as OnUpdate(obj, obj) at that period (after sync). Resync
	// deltas are ordered with the other events.
	ResyncPeriod time.Duration
}

// listener is one handler's buffer and goroutine.
type listener[T Object] struct {
	pack *packer[T] // decodes a compact cache's deltas; nil otherwise

	h      Handler[T]
	resync time.Duration
	next   time.Time // next resync; guarded by the informer's write lock

	mu       sync.Mutex
	chunks   [][]change[T] // pending batches, shared read-only with other listeners
	enqueued uint64
	wake     chan struct{} // capacity 1

	delivered  atomic.Uint64
	syncTarget atomic.Int64  // -1 until the initial state is enqueued
	syncedCh   chan struct{} // closed once delivered reaches syncTarget
	syncOnce   sync.Once
	syncDone   atomic.Bool // syncedCh is closed
	removed    atomic.Bool
	stop       chan struct{} // closed by Remove
	started    bool          // guarded by the informer's write lock
}

func newListener[T Object](h Handler[T], opts HandlerOptions) *listener[T] {
	l := &listener[T]{h: h, resync: opts.ResyncPeriod, wake: make(chan struct{}, 1), stop: make(chan struct{}), syncedCh: make(chan struct{})}
	l.syncTarget.Store(-1)
	return l
}

// enqueue appends a batch; it never blocks on the handler.
func (l *listener[T]) enqueue(batch []change[T], initial bool) {
	if len(batch) == 0 && !initial {
		return
	}
	l.mu.Lock()
	if len(batch) > 0 {
		l.chunks = append(l.chunks, batch)
		l.enqueued += uint64(len(batch))
	}
	if initial {
		l.syncTarget.Store(int64(l.enqueued))
	}
	l.mu.Unlock()
	if initial {
		// The deliveries may have reached the target before it was set
		// (an empty initial state, or a goroutine faster than this one):
		// run checks after each delivery, this checks after setting it.
		l.checkSynced()
	}
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// pending returns the number of deltas not yet delivered.
func (l *listener[T]) pending() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int(l.enqueued - l.delivered.Load())
}

func (l *listener[T]) synced() bool {
	t := l.syncTarget.Load()
	return t >= 0 && l.delivered.Load() >= uint64(t)
}

// checkSynced closes syncedCh once the initial state has been delivered.
// Both the delivering goroutine (after each delivery) and enqueue (after
// setting the target) call it: the target and the count are sequentially
// consistent atomics, so whichever of the two writes comes last sees both.
func (l *listener[T]) checkSynced() {
	if l.syncDone.Load() || !l.synced() {
		return
	}
	l.syncOnce.Do(func() {
		l.syncDone.Store(true)
		close(l.syncedCh)
	})
}

func (l *listener[T]) syncedChan() <-chan struct{} { return l.syncedCh }

func (l *listener[T]) stopChan() <-chan struct{} { return l.stop }

// run delivers batches until done or Remove.
func (l *listener[T]) run(done <-chan struct{}) {
	for {
		l.mu.Lock()
		batches := l.chunks
		l.chunks = nil
		l.mu.Unlock()
		for _, b := range batches {
			for i := range b {
				if l.removed.Load() {
					return
				}
				select {
				case <-done:
					return
				default:
				}
				l.deliver(&b[i])
				l.delivered.Add(1)
				l.checkSynced()
			}
		}
		if len(batches) > 0 {
			continue
		}
		select {
		case <-done:
			return
		case <-l.stop:
			return
		case <-l.wake:
		}
	}
}

func (l *listener[T]) deliver(d *change[T]) {
	if d.objP.ok() || d.oldP.ok() {
		// A compact cache's delta: decode this handler's own objects,
		// leaving the batch (shared by every handler) as it is.
		own := *d
		if own.objP.ok() {
			own.Object = l.pack.unpack(own.objP)
		}
		if own.oldP.ok() {
			own.Old = l.pack.unpack(own.oldP)
		}
		d = &own
	}
	switch d.Type {
	case deltaAdded:
		l.h.OnAdd(d.Object, d.Initial)
	case deltaUpdated:
		l.h.OnUpdate(d.Old, d.Object)
	case deltaReplaced:
		if d.HasOld {
			l.h.OnUpdate(d.Old, d.Object)
		} else {
			l.h.OnAdd(d.Object, d.Initial)
		}
	case deltaSync:
		l.h.OnUpdate(d.Object, d.Object)
	case deltaDeleted:
		l.h.OnDelete(d.Object, d.FinalStateUnknown)
	}
}

// Registration is one handler's registration with an informer.
type Registration struct {
	remove func()
	l      interface {
		synced() bool
		pending() int
		syncedChan() <-chan struct{}
		stopChan() <-chan struct{}
	}
	isSyncd func() bool
	// waitInf is the informer's WaitForSync, also returning
	// ErrHandlerRemoved once its second argument is closed.
	waitInf func(ctx context.Context, removed <-chan struct{}) error
	name    string        // the informer's name
	stopped chan struct{} // closed when the informer's Run returns
}

// Remove unregisters the handler: no callback starts after Remove returns
// (one already running may finish), undelivered events are dropped, and
// the handler's goroutine exits. Remove is idempotent and may be called from
// the handler itself.
func (r *Registration) Remove() { r.remove() }

// HasSynced reports whether the informer has synced and this handler has
// been delivered every object of the initial state (or, for a handler
// registered later, every synthetic add).
func (r *Registration) HasSynced() bool { return r.isSyncd() && r.l.synced() }

// WaitForSync blocks until [Registration.HasSynced] is true, and then returns
// nil: the informer has synced and this handler's callbacks for every
// object of the initial state (or every synthetic add) have returned. It
// waits on a channel, without polling.
//
// Until the informer has synced it returns what [Informer.WaitForSync]
// returns: a *[SyncError] when the informer's Run has returned (cause
// [ErrStopped]), when it keeps failing permanently, or when ctx ends. When
// ctx ends after the informer synced but before the handler was delivered
// the initial state, the *SyncError's cause is [ErrHandlerPending] (and its
// Ctx the context's error); if Run returns meanwhile, the cause is
// ErrStopped. Once Remove has been called it returns [ErrHandlerRemoved],
// even if the handler had synced, and never blocks.
func (r *Registration) WaitForSync(ctx context.Context) error {
	removed := r.l.stopChan()
	select {
	case <-removed:
		return ErrHandlerRemoved
	default:
	}
	if err := r.waitInf(ctx, removed); err != nil {
		return err
	}
	// settled is the outcome once known, in order of precedence: removed,
	// then synced.
	settled := func() (bool, error) {
		select {
		case <-removed:
			return true, ErrHandlerRemoved
		default:
		}
		select {
		case <-r.l.syncedChan():
			return true, nil
		default:
			return false, nil
		}
	}
	if ok, err := settled(); ok {
		return err
	}
	select {
	case <-removed:
	case <-r.l.syncedChan():
	case <-r.stopped:
	case <-ctx.Done():
	}
	if ok, err := settled(); ok {
		return err
	}
	select {
	case <-r.stopped:
		return &SyncError{Informer: r.name, Cause: ErrStopped}
	default:
		return &SyncError{Informer: r.name, Cause: ErrHandlerPending, Ctx: ctx.Err()}
	}
}

// Pending returns how many events wait in this handler's buffer: the
// handler's lag, useful for metrics.
func (r *Registration) Pending() int { return r.l.pending() }
