// Package record writes events.k8s.io/v1 Events: the "what happened to this
// object" records that kubectl describe shows.
//
// A controller makes one Recorder and calls Eventf from anywhere:
//
//	rec, err := record.New(record.NewSink(c), record.Options{
//		ReportingController: "example.com/labeler",
//	})
//	...
//	rec.Eventf(deploy, nil, record.Normal, "Labeled", "Update", "added label %s", key)
//	...
//	err = rec.Shutdown(ctx) // writes what is pending, within ctx's deadline
//
// # Never blocking
//
// Eventf does a little bookkeeping under a lock and returns; a goroutine of
// the Recorder writes to the API server, with up to Writers (4) writes in
// flight. New Events wait in a buffer of BufferSize (10,000); when it is
// full, Eventf drops the new occurrence: it never blocks its caller, and
// never evicts an Event it has accepted. The buffer is sized for bursts: a
// controller that records an Event per object when it starts emits one per
// object at once, and a waiting Event costs only its series (about a
// kilobyte); raise BufferSize for larger bursts. Nothing Eventf refuses is
// lost silently: Stats and the Metrics hook count every drop by reason
// (buffer full, spam limit, invalid arguments, after Shutdown, write
// abandoned).
//
// # Series
//
// Identical occurrences (same regarding and related objects, type, reason,
// action and note) less than SeriesWindow (6 minutes) apart are one Event
// whose series counts them: series.count and series.lastObservedTime, as
// kubectl shows "x12 over 3m". The count is kept in memory and written with
// a JSON merge patch at most once per SeriesInterval (10 seconds) per Event,
// and at Shutdown, so a hot loop costs the server one write per interval,
// not one per occurrence. The series of the CacheSize (4096) most recently
// seen Events are tracked; an evicted one simply starts a new Event on its
// next occurrence. If an Event disappears (its TTL passed), the next write
// creates it again with its count.
//
// # Spam limit
//
// Each regarding object has a token bucket: 25 tokens, one more every 5
// minutes (SpamBurst, SpamRefill; the values client-go uses). Starting a new
// Event about the object takes a token; adding to a series does not, since
// series writes are already bounded by SeriesInterval. An object that emits
// many different Events thus gets 25 at once, then one per 5 minutes, and
// the rest are dropped and counted as DropSpam. The buckets of the
// CacheSize most recently seen objects are kept; an evicted object starts
// again with a full bucket.
//
// # Failures
//
// Writes failing with transient errors (network, timeouts, 429, 5xx) are
// retried with a backoff from 500ms, up to MaxAttempts; other refusals are
// dropped at once. All are logged and counted.
//
// # Testing
//
// Sink is the small interface the Recorder writes to (Create and
// UpdateSeries); NewSink implements it with a kubego client, and tests use
// an in-memory one. All time comes from Options.Clock, so tests run under
// testing/synctest.
package record
