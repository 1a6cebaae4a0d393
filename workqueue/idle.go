package workqueue

// Idle reports whether no key is waiting for a worker (at normal or low
// priority) and none is held by a worker. Keys waiting for an AddAfter or
// rate-limiter delay do not count: they are not work yet. Like Len it is a
// snapshot, true only until the next Add; inside a testing/synctest bubble,
// after synctest.Wait, it stays true until time moves or the test acts.
func (q *Queue[K]) Idle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.takeInLocked(false)
	return len(q.held) == 0 && q.ready.len() == 0 && len(q.lowSeq) == 0
}
