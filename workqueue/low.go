package workqueue

// lowMark is what Queue.lowSeq knows of a key waiting at low priority:
// the number of its live entry in Queue.low and, with metrics, when it
// was added (see Queue.now).
type lowMark struct {
	seq uint64
	at  int64
}

// lowEntry is one entry of Queue.low: a key and the number that makes it
// the key's live entry.
type lowEntry[K any] struct {
	key K
	seq uint64
}

// AddLow marks k as needing processing at low priority: Get hands it out
// only when no key added otherwise (Add, AddAfter, AddRateLimited) waits.
// Keys added with AddLow come out first in, first out among themselves.
// It is meant for work nobody is waiting for, such as the objects of an
// informer's initial list or of a resync, so that a change made meanwhile
// is processed before that backlog.
//
// The queue's guarantees hold across both priorities: a key waits once
// (an Add of a key waiting at low priority moves it to the back of the
// normal line; an AddLow of a key already waiting does nothing), a key
// held by a worker is not handed out again before Done (an AddLow then
// queues it again at Done, at normal priority, as an Add would), and
// after shutdown it does nothing. Low-priority keys count in Len and in
// the depth metric; ShutDown drops them and ShutDownWithDrain hands them
// out after the others.
//
// A low-priority key can wait as long as normal keys keep coming; there
// is no ageing.
func (q *Queue[K]) AddLow(k K) {
	h := q.keys.hash(k)
	q.mu.Lock()
	defer q.mu.Unlock()
	q.takeInLocked(false) // adds made before this one keep their turn
	if q.shut {
		return
	}
	if i, ok := q.keys.lookup(h); ok {
		q.addHeldLocked(i)
		return // waiting already, or due to wait again after Done
	}
	if _, ok := q.lowSeq[k]; ok {
		return
	}
	at := q.noteAdded()
	if len(q.waiters) > 0 {
		// A Get is parked, so nothing waits: hand k over now.
		q.readyLocked(q.insertLocked(h, at))
		return
	}
	if q.lowSeq == nil {
		q.lowSeq = make(map[K]lowMark)
	}
	q.lowNext++
	q.lowSeq[k] = lowMark{q.lowNext, at}
	q.low.push(q.laneOf(k), lowEntry[K]{k, q.lowNext})
	if q.metrics != nil {
		q.metrics.Depth(q.depthLocked())
	}
}

// promoteLocked takes k out of the low-priority keys, reporting whether it
// was one and, if so, when it was added; its stale entry stays in low
// until popped or cleared.
func (q *Queue[K]) promoteLocked(k K) (at int64, ok bool) {
	if len(q.lowSeq) == 0 {
		return 0, false
	}
	m, ok := q.lowSeq[k]
	if !ok {
		return 0, false
	}
	delete(q.lowSeq, k)
	if len(q.lowSeq) == 0 {
		q.lowSeq = nil
		q.low.clear()
	}
	return m.at, true
}

// popLowLocked takes the oldest low-priority key and hands it to the
// caller, as held. At least one must wait (len(q.lowSeq) > 0).
func (q *Queue[K]) popLowLocked() K {
	for {
		e := q.low.pop()
		m, ok := q.lowSeq[e.key]
		if !ok || m.seq != e.seq {
			continue // stale
		}
		delete(q.lowSeq, e.key)
		if len(q.lowSeq) == 0 {
			q.lowSeq = nil
			q.low.clear()
		}
		k := q.takeLocked(q.insertLocked(q.keys.hash(e.key), m.at))
		if q.metrics != nil {
			q.metrics.Depth(q.depthLocked())
		}
		return k
	}
}

// depthLocked is the number of keys waiting for a worker.
func (q *Queue[K]) depthLocked() int { return q.ready.len() + len(q.lowSeq) }

// DropLane removes the keys of lane name (Options.Lane) that wait for a
// worker, at either priority, and forgets their retry counts (as Forget),
// returning how many it removed; a controller calls it when the lane's
// cluster or tenant is gone, so its backlog neither waits for a worker
// nor stays in memory. Keys held by workers, and keys waiting for an
// AddAfter or AddRateLimited delay, are not affected: they reach a worker
// as usual. Without Options.Lane it removes nothing and returns 0.
func (q *Queue[K]) DropLane(name string) int {
	if q.lane == nil {
		return 0
	}
	q.mu.Lock()
	q.takeInLocked(false)
	var dropped []K
	ready := q.ready.remove(name)
	ready.each(func(i uint32) {
		dropped = append(dropped, q.keys.at(i).key)
		q.keys.release(i)
	})
	low := q.low.remove(name)
	low.each(func(e lowEntry[K]) {
		if m, ok := q.lowSeq[e.key]; ok && m.seq == e.seq {
			dropped = append(dropped, e.key)
			delete(q.lowSeq, e.key)
		}
	})
	if len(q.lowSeq) == 0 {
		q.lowSeq = nil
		q.low.clear()
	}
	if q.metrics != nil && len(dropped) > 0 {
		q.metrics.Depth(q.depthLocked())
	}
	q.closeIfDrainedLocked()
	q.mu.Unlock()
	for _, k := range dropped {
		q.limiter.Forget(k) // outside the lock, as Forget
	}
	return len(dropped)
}
