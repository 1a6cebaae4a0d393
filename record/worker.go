package record

import (
	"context"
	"errors"
	"sync"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubego/kubego/backoff"
	"github.com/kubego/kubego/clock"
)

// job is one write the worker does, prepared under the lock.
type job struct {
	s               *series
	create          bool
	ev              *eventsv1.Event // create: the full Event
	namespace, name string          // series update: the Event's
	series          eventsv1.EventSeries
	count           int32 // the count this write brings the server to
}

// run is the Recorder's goroutine. It hands the writes that are due to up
// to Options.Writers writer goroutines, each taking the next due write as
// soon as one finishes, so one slow write holds back only its own writer;
// then it waits for new work, a finished write, the next due time,
// Shutdown or ctx (Shutdown's deadline). It returns once every write it
// started has finished; a write cut short by ctx is put back.
func (r *Recorder) run(ctx context.Context) {
	defer close(r.done)
	var writers sync.WaitGroup
	defer writers.Wait()
	free := r.opts.Writers
	// Never more sends than writers in flight, so a writer never blocks here.
	finished := make(chan struct{}, r.opts.Writers)
	draining := false
	for {
		now := r.opts.Clock.Now()
		jobs, next, empty := r.take(now, draining, free)
		for _, j := range jobs {
			free--
			writers.Go(func() {
				r.do(ctx, j)
				finished <- struct{}{}
			})
		}
		if draining && empty && free == r.opts.Writers {
			return
		}
		var fired chan struct{}
		var tm clock.Timer
		if !next.IsZero() {
			fired = make(chan struct{})
			tm = r.opts.Clock.AfterFunc(next.Sub(now), func() { close(fired) })
		}
		drain := r.drain
		if draining {
			drain = nil
		}
		select {
		case <-r.wake:
		case <-finished:
			free++
		case <-fired:
		case <-drain:
			draining = true
		case <-ctx.Done():
		}
		if tm != nil {
			tm.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// do writes j and records the outcome; when ctx ends first, j is put back.
func (r *Recorder) do(ctx context.Context, j job) {
	if ctx.Err() != nil {
		r.putBack([]job{j})
		return
	}
	err := r.write(ctx, j)
	if ctx.Err() != nil {
		r.putBack([]job{j})
		return
	}
	r.finish(j, err)
}

// take returns at most limit of the writes due at now (creates first, in
// the order they were recorded), the time the next one not yet due falls
// due (zero if none is waiting), and whether nothing at all is pending
// once the jobs are taken. When draining, series counts are due without
// waiting for SeriesInterval.
func (r *Recorder) take(now time.Time, draining bool, limit int) (jobs []job, next time.Time, empty bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	later := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	kept := r.creates[:0]
	for _, s := range r.creates {
		if s.retryAt.After(now) {
			kept = append(kept, s)
			later(s.retryAt)
			continue
		}
		if len(jobs) >= limit {
			kept = append(kept, s) // due; taken when a writer is free
			continue
		}
		s.state = inflight
		ev := s.event(&r.opts)
		if s.count >= 2 {
			v := s.seriesValue()
			ev.Series = &v
		}
		jobs = append(jobs, job{s: s, create: true, ev: ev, count: s.count})
	}
	clear(r.creates[len(kept):])
	r.creates = kept
	for s := range r.dirty {
		due := s.retryAt
		if !draining {
			if t := s.lastWrite.Add(r.opts.SeriesInterval); t.After(due) {
				due = t
			}
		}
		if due.After(now) {
			later(due)
			continue
		}
		if len(jobs) >= limit {
			continue // due; taken when a writer is free
		}
		delete(r.dirty, s)
		s.state = inflight
		jobs = append(jobs, job{s: s, namespace: s.namespace(), name: s.name, series: s.seriesValue(), count: s.count})
	}
	return jobs, next, len(r.creates) == 0 && len(r.dirty) == 0
}

func (r *Recorder) write(ctx context.Context, j job) error {
	if j.create {
		return r.sink.Create(ctx, j.ev)
	}
	return r.sink.UpdateSeries(ctx, j.namespace, j.name, j.series)
}

// finish records the outcome of j.
func (r *Recorder) finish(j job, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := j.s
	now := r.opts.Clock.Now()
	if r.opts.Metrics != nil {
		r.opts.Metrics.Wrote(err)
	}
	if err == nil || j.create && apierrors.IsAlreadyExists(err) {
		// AlreadyExists: names are unique per recorder, so an earlier
		// attempt that seemed to fail was stored.
		r.stats.Writes++
		s.written, s.lastWrite, s.attempts, s.retryAt = j.count, now, 0, time.Time{}
		r.settleLocked(s)
		return
	}
	if !j.create && apierrors.IsNotFound(err) {
		// The Event expired or was deleted: start it again, with its series.
		s.name = r.nameLocked(s.key.regarding.name, now)
		s.eventTime, s.written, s.state = now, 0, queued
		r.creates = append(r.creates, s)
		return
	}
	s.attempts++
	if !transient(err) || s.attempts >= r.opts.MaxAttempts {
		r.opts.Logger.Warn("record: event write abandoned", "namespace", s.namespace(), "name", s.name, "reason", s.key.reason, "attempts", s.attempts, "error", err)
		r.dropLocked(DropWriteFailed)
		if s.cached {
			r.uncacheLocked(s)
		}
		// No longer cached, s is never written again; the next identical
		// occurrence starts a new Event.
		s.attempts, s.retryAt, s.state = 0, time.Time{}, idle
		return
	}
	s.retryAt = now.Add(writeRetryDelay(s.attempts))
	r.requeueLocked(s, j.create)
}

// putBack returns unfinished jobs to their queues (Shutdown counts them).
func (r *Recorder) putBack(jobs []job) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, j := range jobs {
		r.requeueLocked(j.s, j.create)
	}
}

func (r *Recorder) requeueLocked(s *series, create bool) {
	if create {
		s.state = queued
		r.creates = append(r.creates, s)
		return
	}
	s.state = dirty
	r.dirty[s] = struct{}{}
}

// settleLocked marks s dirty if occurrences arrived during its write.
func (r *Recorder) settleLocked(s *series) {
	if s.count > s.written {
		s.state = dirty
		r.dirty[s] = struct{}{}
		return
	}
	s.state = idle
}

// writeRetryDelay is the wait after the n-th failed attempt of a write:
// 500ms doubling, at most 30s, no jitter.
func writeRetryDelay(n int) time.Duration {
	return backoff.Backoff{Initial: 500 * time.Millisecond, Max: 30 * time.Second, Factor: 2}.Delay(n)
}

// transient reports whether a write failing with err may succeed later.
func transient(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return true // network, timeouts, a cancelled context
	}
	return apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsUnexpectedServerError(err) ||
		status.Status().Code >= 500
}
