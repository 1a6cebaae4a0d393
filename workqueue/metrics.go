package workqueue

import "time"

// Metrics receives a queue's events, for export to a monitoring system. The
// package promqueue implements it for Prometheus.
//
// The queue calls every method with its internal lock held, in the order the
// events happen, so implementations see a consistent sequence; in return they
// must be fast, must not block and must not call back into the queue (the
// function given to Attach is the exception: call it from anywhere except
// inside another Metrics method). A nil Metrics in Options costs nothing:
// the queue then never reads the clock for metrics nor keeps timestamps.
//
// One Metrics value serves one queue.
type Metrics interface {
	// Added reports that a key was marked for processing. Adds of a key that
	// is already waiting for a worker are deduplicated and not reported; a
	// re-add while the key is being processed is.
	Added()
	// Depth reports the new number of keys waiting for a worker (Len).
	Depth(n int)
	// Started reports that a worker received a key that had waited for it
	// since it was added.
	Started(waited time.Duration)
	// Finished reports that a worker called Done for a key it had held for
	// worked.
	Finished(worked time.Duration)
	// Retried reports a call to AddAfter or AddRateLimited.
	Retried()
	// Attach is called once, by New, with a function that reports the work
	// in progress at the moment it is called. Implementations call it when
	// scraped to publish unfinished-work and longest-running gauges, so the
	// queue needs no goroutine to push them.
	Attach(inFlight func() InFlight)
}

// InFlight describes the keys handed to workers and not yet Done.
type InFlight struct {
	// Count is the number of such keys.
	Count int
	// Total is the sum of the time each has been held so far: the
	// "unfinished work" of the queue.
	Total time.Duration
	// Longest is the time the longest-held key has been held so far.
	Longest time.Duration
}
