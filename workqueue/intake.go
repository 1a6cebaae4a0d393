package workqueue

import (
	"sync"
	"sync/atomic"
)

// intakeMax bounds the intake: the Add that fills it takes the keys in
// itself.
const intakeMax = 256

// intake is where Add leaves keys while workers are busy, so that producers
// contend only for a short append instead of for the queue's lock, and the
// queue's bookkeeping runs in batches (see Queue.takeInLocked). While a Get
// is parked the intake is closed and Add goes straight through the queue's
// lock, to hand the key over at once.
//
// Lock order: Queue.mu before intake.mu.
type intake[K any] struct {
	mu     sync.Mutex
	keys   []K          // guarded by mu
	closed bool         // guarded by mu: Adds must take Queue.mu
	n      atomic.Int32 // len(keys), readable without mu: a hint for Get
}

// offer appends k unless the intake is closed. It reports whether k was
// taken, and whether the intake is now full.
func (in *intake[K]) offer(k K) (taken, full bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return false, false
	}
	in.keys = append(in.keys, k)
	in.n.Store(int32(len(in.keys)))
	return true, len(in.keys) >= intakeMax
}

// swap returns the keys offered so far, oldest first, and gives the intake
// spare (emptied) to fill next. If the intake is empty and closeIfEmpty is
// set, it closes the intake.
func (in *intake[K]) swap(spare []K, closeIfEmpty bool) []K {
	in.mu.Lock()
	defer in.mu.Unlock()
	keys := in.keys
	if len(keys) == 0 {
		if closeIfEmpty {
			in.closed = true
		}
		return nil
	}
	in.keys = spare[:0]
	in.n.Store(0)
	return keys
}

// setClosed opens or closes the intake.
func (in *intake[K]) setClosed(closed bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.closed = closed
}
