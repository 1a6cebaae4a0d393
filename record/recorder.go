package record

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Type is the type of an Event: Normal or Warning, the only two the API
// server accepts. corev1.EventTypeNormal and corev1.EventTypeWarning convert
// to it.
type Type string

const (
	// Normal is for information: something happened as expected.
	Normal Type = "Normal"
	// Warning is for something that may need attention.
	Warning Type = "Warning"
)

// Limits of the API server on Event fields.
const (
	maxReasonLen = 128
	maxActionLen = 128
	maxNoteLen   = 1024
)

// Recorder records Events about objects. Eventf never blocks: it folds the
// occurrence into a series kept in memory, or queues a new Event, and a
// goroutine of the Recorder writes to the Sink. Create it with New and stop
// it with Shutdown. A Recorder is safe for concurrent use.
type Recorder struct {
	sink Sink
	opts Options

	cancel context.CancelFunc // abandons the worker's writes
	wake   chan struct{}      // capacity 1: there may be new work
	drain  chan struct{}      // closed by Shutdown
	done   chan struct{}      // closed when the worker has returned
	once   sync.Once

	mu       sync.Mutex
	closed   bool
	cache    seriesCache          // the series aggregated into
	creates  []*series            // Events waiting to be created, in order
	dirty    map[*series]struct{} // created Events with a count to write
	spam     *spamLimit
	lastName int64
	stats    Stats
}

// New returns a Recorder writing to sink and starts its goroutine. It
// returns an *OptionsError (wrapping ErrInvalidOptions) when opts is not
// usable.
func New(sink Sink, opts Options) (*Recorder, error) {
	if sink == nil {
		return nil, &OptionsError{"sink", "required"}
	}
	o, err := opts.resolved()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Recorder{
		sink: sink, opts: o, cancel: cancel,
		wake: make(chan struct{}, 1), drain: make(chan struct{}), done: make(chan struct{}),
		cache: newSeriesCache(), dirty: map[*series]struct{}{},
		spam: newSpamLimit(o.SpamBurst, o.SpamRefill, o.CacheSize),
	}
	go r.run(ctx)
	return r, nil
}

// Eventf records that action was taken on (or happened to) regarding, with
// a reason and a note formatted from note and args as by fmt.Sprintf (note
// is used as is when there are no args). related names a second object
// involved and may be nil. typ is Normal or Warning; reason and action are
// required, in UpperCamelCase by convention, at most 128 characters; the
// note is cut to 1024 bytes.
//
// regarding and related are a *corev1.ObjectReference, or any object with
// metadata whose kind is in its TypeMeta or in Options.Scheme. Cluster-
// scoped objects get their Events in the "default" namespace. Eventf reads
// them before it returns and keeps no reference to them.
//
// An occurrence identical to one recorded less than SeriesWindow before
// (same objects, type, reason, action and note) increments the series
// count of that Event. Otherwise it starts a new Event, which takes a token
// of the regarding object's spam limit. Eventf does not block and returns
// nothing: occurrences that will not be recorded (invalid, over the spam
// limit, buffer full, after Shutdown) are counted in Stats and Metrics, and
// invalid ones are logged with an *InvalidEventError.
func (r *Recorder) Eventf(regarding, related runtime.Object, typ Type, reason, action, note string, args ...any) {
	o, err := r.prepare(regarding, related, typ, reason, action, note, args)
	r.mu.Lock()
	if err != nil {
		r.dropLocked(DropInvalid)
		r.mu.Unlock()
		r.opts.Logger.Error("record: event dropped", "error", err)
		return
	}
	r.addLocked(&o, r.opts.Clock.Now())
	r.mu.Unlock()
}

// occurrence is one valid Eventf call.
type occurrence struct {
	key                seriesKey
	regarding, related corev1.ObjectReference
}

// prepare checks the arguments of Eventf and describes the occurrence.
func (r *Recorder) prepare(regarding, related runtime.Object, typ Type, reason, action, note string, args []any) (occurrence, error) {
	var o occurrence
	switch {
	case typ != Normal && typ != Warning:
		return o, &InvalidEventError{Field: "type", Reason: fmt.Sprintf("%q is neither Normal nor Warning", string(typ))}
	case reason == "" || len(reason) > maxReasonLen:
		return o, &InvalidEventError{Field: "reason", Reason: "must have 1 to 128 characters"}
	case action == "" || len(action) > maxActionLen:
		return o, &InvalidEventError{Field: "action", Reason: "must have 1 to 128 characters"}
	}
	var err error
	if o.regarding, err = r.reference("regarding", regarding); err != nil {
		return o, err
	}
	if related != nil && !isNilPointer(related) {
		if o.related, err = r.reference("related", related); err != nil {
			return o, err
		}
		o.key.related = keyOf(&o.related)
	}
	if len(args) > 0 {
		note = fmt.Sprintf(note, args...)
	}
	if len(note) > maxNoteLen {
		// Cut at the byte limit; a rune split by the cut is removed.
		note = strings.ToValidUTF8(note[:maxNoteLen], "")
	}
	o.key.regarding = keyOf(&o.regarding)
	o.key.typ, o.key.reason, o.key.action, o.key.note = typ, reason, action, note
	return o, nil
}

func (r *Recorder) addLocked(o *occurrence, now time.Time) {
	if r.closed {
		r.dropLocked(DropShutdown)
		return
	}
	if s := r.cache.get(o.key); s != nil {
		if now.Sub(s.last) < r.opts.SeriesWindow {
			s.count++
			if now.After(s.last) {
				s.last = now
			}
			r.cache.touch(s)
			r.stats.Aggregated++
			if s.state == idle {
				s.state = dirty
				r.dirty[s] = struct{}{}
				r.signal()
			}
			return
		}
		r.uncacheLocked(s)
	}
	if len(r.creates) >= r.opts.BufferSize {
		r.dropLocked(DropBufferFull)
		return
	}
	if !r.spam.allow(o.key.regarding, now) {
		r.dropLocked(DropSpam)
		return
	}
	s := &series{
		key: o.key, count: 1, last: now, eventTime: now, state: queued, cached: true,
		regardingRV: o.regarding.ResourceVersion, regardingField: o.regarding.FieldPath,
		relatedRV: o.related.ResourceVersion, relatedField: o.related.FieldPath,
	}
	s.name = r.nameLocked(o.regarding.Name, now)
	r.cache.add(s)
	if r.cache.len() > r.opts.CacheSize {
		r.uncacheLocked(r.cache.oldest())
	}
	r.creates = append(r.creates, s)
	r.stats.Created++
	r.signal()
}

// uncacheLocked stops aggregating into s; a pending write of s still
// happens.
func (r *Recorder) uncacheLocked(s *series) {
	r.cache.remove(s)
	s.cached = false
}

// nameLocked returns a name no earlier Event of this Recorder has.
func (r *Recorder) nameLocked(obj string, now time.Time) string {
	n := now.UnixNano()
	if n <= r.lastName {
		n = r.lastName + 1
	}
	r.lastName = n
	return eventName(obj, n)
}

func (r *Recorder) dropLocked(reason DropReason) {
	switch reason {
	case DropBufferFull:
		r.stats.DroppedBufferFull++
	case DropSpam:
		r.stats.DroppedSpam++
	case DropInvalid:
		r.stats.DroppedInvalid++
	case DropShutdown:
		r.stats.DroppedShutdown++
	case DropWriteFailed:
		r.stats.DroppedWriteFailed++
	}
	if r.opts.Metrics != nil {
		r.opts.Metrics.Dropped(reason)
	}
}

func (r *Recorder) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Stats returns the counters so far.
func (r *Recorder) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// Shutdown stops accepting occurrences (later Eventf calls are dropped as
// DropShutdown), writes every pending Event and series count, and stops the
// Recorder's goroutine. When ctx ends first, pending writes are abandoned
// and a *ShutdownError wrapping ctx's error is returned; the goroutine has
// stopped either way when Shutdown returns. Calling Shutdown again returns
// nil once the first call has finished.
func (r *Recorder) Shutdown(ctx context.Context) error {
	r.once.Do(func() {
		r.mu.Lock()
		r.closed = true
		r.mu.Unlock()
		close(r.drain)
	})
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
	}
	r.cancel()
	<-r.done
	r.mu.Lock()
	n := len(r.creates) + len(r.dirty)
	r.mu.Unlock()
	if n == 0 {
		return nil
	}
	return &ShutdownError{Unwritten: n, Err: ctx.Err()}
}

func microTime(t time.Time) metav1.MicroTime { return metav1.NewMicroTime(t) }
