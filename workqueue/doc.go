// Package workqueue is the queue between a controller's event handlers and
// its workers.
//
// Handlers only Add keys, typically a {Namespace, Name} struct naming an
// object that changed; workers take keys with Get, reconcile the named
// object towards its desired state, and report back. A Queue is generic over
// the key type, which may be any comparable type.
//
// # Guarantees
//
// A Queue gives the guarantees controllers are built on:
//
//   - Deduplication: a key waiting for a worker is queued once, however many
//     times it is added; it keeps its place in line.
//   - Exclusion: a key handed out by Get is not handed out again until the
//     worker calls Done, so no two workers ever process the same key at
//     once.
//   - No lost updates: a key added while a worker holds it is queued again
//     when the worker calls Done, so the latest state is always processed
//     after the latest Add.
//   - Order: keys come out first in, first out, in the order the queue
//     took them in. Controllers should not rely on more than that: a
//     key's turn is not a promise about when it is processed.
//   - Lanes: with Options.Lane the waiting keys are sorted into lanes
//     (a cluster, a tenant) that Get serves in turn, each first in,
//     first out, so one lane's backlog delays another lane's key by one
//     key per busy lane, not by the whole backlog.
//   - Priority: keys added with AddLow (an informer's initial list, a
//     resync) wait behind every other key; an Add of such a key moves it
//     to the normal line. The guarantees above hold at both priorities.
//
// # The worker loop
//
// The protocol for a worker is Get, process, then Forget on success or
// AddRateLimited on failure, and Done in every case:
//
//	for {
//		key, ok := q.Get(ctx)
//		if !ok {
//			return // shut down, or ctx ended
//		}
//		if err := reconcile(ctx, key); err != nil {
//			q.AddRateLimited(key) // retry later, with backoff
//		} else {
//			q.Forget(key) // reset the backoff
//		}
//		q.Done(key)
//	}
//
// Forgetting Done starves a key forever, and forgetting Forget keeps its
// backoff growing. The controller package owns this loop, so users of
// controllers write only the reconcile step and cannot get it wrong; use a
// Queue directly only when building such a loop.
//
// # Delays and rate limiting
//
// AddAfter adds a key once a delay has passed. All waiting keys share a
// min-heap and one timer (no goroutine waits for them), and a key waits
// once, until the earliest time asked for.
//
// AddRateLimited asks the queue's RateLimiter how long a failing key should
// wait, and adds it after that. The default limiter takes the larger of a
// per-key exponential backoff (5ms, 10ms, 20ms, … up to 1000s) and an
// overall token bucket (10 retries per second after a burst of 100), like
// client-go's default controller rate limiter. Exponential, Bucket,
// FastSlow and MaxOf build others. NumRequeues reports a key's failures
// since it was last forgotten.
//
// # Shutting down
//
// ShutDown stops the queue at once: pending keys are dropped and every Get
// returns ok == false. ShutDownAndWait does the same and then waits, up to
// its context's deadline, for workers to call Done on the keys they hold
// (how a controller stops). ShutDownWithDrain, as in client-go, refuses new
// keys but lets workers take every key already waiting before Get reports
// the shutdown, and waits for all of them to be Done. Cancelling the
// context passed to Get stops only that Get.
//
// # Time and metrics
//
// Time comes from Options.Clock, the system clock by default, so tests can
// use a fake clock or run under testing/synctest. Options.Metrics receives
// depth, adds, queue latency, work duration, retries and, on demand,
// unfinished work; package promqueue exports them to Prometheus. Without
// Metrics the queue does no metrics work at all. With Metrics, the times
// behind queue latency and work duration are kept beside each key's state
// in the queue's table (two integers of the queue's clock per key), not in
// maps of their own.
//
// # Performance
//
// Add, Get and Done allocate nothing in steady state. Pending keys live in
// a FIFO of fixed-size blocks that are recycled, not in a slice that is
// copied as it grows. The state of each key (waiting, held, added again
// while held) lives in a hash table of the queue's own, whose index holds
// no pointers: Add hashes its key before taking the queue's lock, so the
// work under the lock is one probe and a store; Get takes a slot number
// from the FIFO and touches no index; Done finds its key in the short list
// of held keys (its cost grows with the number of keys held at once, that
// is with the number of busy workers). Keys that are done are not deleted
// from the index one by one: it is rebuilt from the live keys when it
// fills up. While workers are busy, Add only appends to a short intake
// that the next Get takes in as a batch, so producers and workers rarely
// wait for each other; a parked Get instead receives its key directly from
// Add. bench/workqueue measures adds per second and bytes per add side by
// side with client-go's queue (1M keys, 4 producers, 8 workers); the
// figures are in docs/performance.md.
package workqueue
