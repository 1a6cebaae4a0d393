package informer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/util/resourceversion"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/backoff"
	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/internal/codec"
	"github.com/kubego/kubego/internal/defaultlog"
)

// hintingSink is a Sink that says what it already holds and what it
// discards, so that the reflector's watches can skip decoding those (the
// informer's sink is one; see hintedWatcher).
type hintingSink[T Object] interface {
	// watchHints returns the hints for one of the reflector's watches.
	// Their Known is called from the watch stream's goroutine,
	// concurrently with the sink's other methods.
	watchHints() codec.Hints
	// prepareShared is Prepare for an object of a watch that was given
	// hints with a Share table: its values are shared already.
	prepareShared(obj T) T
}

// deltaSink receives what a [reflector] learns, in order, from the reflector's
// goroutine only. The informer implements it; tests may too.
type deltaSink[T Object] interface {
	// Prepare is called once on every object received (list item or watch
	// event) before it is buffered or applied, and returns the object to use
	// instead (transformed, trimmed, or an identical object already held).
	Prepare(obj T) T
	// Replace delivers the complete state as of resourceVersion. Objects
	// held but not in items were deleted while the reflector was not
	// watching.
	Replace(items []T, resourceVersion string)
	// Add, Update and Delete deliver one watch event each.
	Add(obj T)
	Update(obj T)
	Delete(obj T)
}

// stagingSink is a deltaSink that stores a complete state while it is
// received, instead of being handed it whole by Replace (the informer's
// sink is one): the reflector then holds no list of its own.
type stagingSink[T Object] interface {
	// stage opens a complete state; the store keeps its current content
	// until the stager's Commit.
	stage() stager[T]
}

// stager receives one complete state (an initial list, a streaming list's
// initial events, a relist), from the reflector's goroutine only.
type stager[T Object] interface {
	// Put prepares obj as Sink.Prepare would (shared: it came from a watch
	// that shared its values, see hintingSink) and adds it, replacing
	// what an earlier Put gave for its key. detach asks that a decoded
	// object kept as it is be moved out of its LIST page (see detach).
	Put(obj T, shared, detach bool)
	// Remove drops what was put under k.
	Remove(k Key)
	// Commit delivers what was put as the complete state as of
	// resourceVersion (Sink.Replace). The stager is spent.
	Commit(resourceVersion string)
	// Abort drops what was put: the sink keeps what it holds. It does
	// nothing after Commit.
	Abort()
}

// ReflectorOptions configures a [reflector]. The zero value is valid.
type ReflectorOptions struct {
	// LabelSelector and FieldSelector restrict what is listed and watched.
	LabelSelector string
	FieldSelector string
	// PageSize is the LIST page size (limit); 0 means 500.
	PageSize int64
	// DisableStreaming skips the streaming initial list (sendInitialEvents)
	// and always uses a paginated LIST.
	DisableStreaming bool
	// InitialEventsTimeout bounds the wait for the end-of-initial-events
	// bookmark of a streaming list; when it expires the reflector records
	// ErrInitialEventsNotFinished and falls back to LIST for good. 0 means
	// one minute; raise it for collections so large that streaming them
	// takes longer.
	InitialEventsTimeout time.Duration
	// MinWatchTimeout is the lower bound of the randomised watch
	// timeoutSeconds, which lies in [MinWatchTimeout, 2×MinWatchTimeout).
	// 0 means five minutes. The server ends a watch after timeoutSeconds;
	// if a watch is still open a grace period later (a quarter of the
	// timeout, between 2 and 30 seconds) the reflector abandons it with
	// ErrWatchStalled and watches again, so a server that sends headers and
	// then nothing cannot freeze the cache.
	MinWatchTimeout time.Duration
	// WatchOpenTimeout bounds the wait for a watch to open (the server's
	// response headers); a watch not open by then is abandoned with
	// ErrWatchStalled and retried with backoff, so a server or proxy that
	// never answers cannot freeze the reflector before its first event. 0
	// means one minute.
	WatchOpenTimeout time.Duration
	// Namespace is the namespace the ListerWatcher lists and watches, ""
	// for all namespaces (or a cluster-scoped resource). An object from
	// another namespace is refused (see [RefusedError]). A Factory sets it.
	// A ListerWatcher that is [Namespaced] gives its own namespace, checked
	// as well: an object must be in both.
	Namespace string
	// Resource, when set, is the resource the ListerWatcher serves. An
	// unstructured object (runtime.Unstructured) is then refused unless its
	// apiVersion is the resource's group/version and its kind is Kind, or,
	// when Kind is empty, a kind whose regular plural is the resource
	// (ConfigMap for configmaps; an irregular plural is learned from the
	// first object as long as no regular one came). A Factory sets it for
	// unstructured informers.
	Resource schema.GroupVersionResource
	// Kind, when set, is the one kind objects may have: unstructured ones
	// (with Resource set) and typed ones that state a kind. When empty, a
	// typed object that states a kind must state its Go type's name
	// (ConfigMap for *corev1.ConfigMap; another name is learned from the
	// first object as long as none of that name came).
	Kind string
	// ListTimeout bounds each LIST page request; a page that has not fully
	// arrived by then fails the attempt (and is retried with backoff). 0
	// means one minute, kube-apiserver's own default request timeout.
	ListTimeout time.Duration
	// Backoff is the delay after failures (of a list, a watch, or a watch
	// that ends at once). Zero fields take the defaults: Initial 800ms,
	// Max 30s, Factor 2 (used when below 1), Jitter 1.0, so a delay d is
	// waited as a random time in [d, 2d); a negative Jitter means none.
	// Steps is ignored: the reflector never gives up.
	Backoff backoff.Backoff
	// BackoffResetAfter is how long without a failure starts the delay
	// again from Backoff.Initial. Zero means two minutes. A watch that
	// stayed open longer than the delay waited before it also starts the
	// delay again, so that faults every few seconds do not push it to Max.
	BackoffResetAfter time.Duration
	// Clock is the time source; nil means the wall clock.
	Clock clock.Clock
	// Logger receives debug and warning records (every failed list or
	// watch, a relist after 410 Gone included, is a warning). Nil means
	// warnings go to slog.Default() and debug records nowhere.
	Logger *slog.Logger
	// Name identifies the reflector in logs and errors.
	Name string
}

// phase is the reflector's state: what its next step will do.
type phase int

const (
	// phaseNeedState: the next step fetches the complete state, by streaming
	// watch when allowed, otherwise by paginated LIST.
	phaseNeedState phase = iota
	// phaseStreaming: a streaming watch is open and its initial events are being
	// collected until the end bookmark.
	phaseStreaming
	// phaseNeedWatch: the state is known as of a resourceVersion; the next step
	// opens a watch from it.
	phaseNeedWatch
	// phaseWatching: a watch is open; the next step applies its events until it
	// ends.
	phaseWatching
)

func (p phase) String() string {
	return [...]string{"NeedState", "Streaming", "NeedWatch", "Watching"}[p]
}

// state is everything the step function reads and writes. Only the goroutine
// running the reflector touches it.
type state[T Object] struct {
	phase      phase
	rv         string // last resourceVersion seen (list, event or bookmark)
	relistFrom string // resourceVersion for the next full fetch; "" = latest
	streaming  bool   // the next NeedState step may try a streaming watch
	listOnce   bool   // the next NeedState step lists even if streaming is allowed
	w          watch.Interface
	deadline   time.Time     // Streaming: when to give up on the end bookmark
	started    time.Time     // Watching: when the watch opened
	watchFor   time.Duration // the current watch's timeoutSeconds
	events     int           // Watching: events received on the current watch
	staged     stager[T]     // Streaming: the initial objects received so far
	shared     bool          // the current watch shares objects (codec.Hints.Share)
	backoff    backoffState
}

// reflector keeps a [store] in step with the API server through a
// [ListerWatcher]: it fetches the complete state (streaming watch or
// paginated LIST), then watches from the state's resourceVersion, resumes a
// dropped watch without relisting, relists on 410 Gone, and backs off
// exponentially on errors. It is an explicit state machine: [phase] plus one
// step function; Run only loops over it.
//
// A reflector runs once; its status methods are safe for concurrent use.
type reflector[T Object] struct {
	lw   ListerWatcher[T]
	sink deltaSink[T]
	// hinting is sink when it is a hintingSink, else nil.
	hinting hintingSink[T]
	// staging is sink when it is a stagingSink, else nil.
	staging stagingSink[T]
	opts    ReflectorOptions
	clock   clock.Clock
	backoff backoffConfig
	log     *slog.Logger
	admit   *admission

	phase atomic.Int32 // Phase after the last step, for observers

	mu        sync.Mutex
	lastRV    string
	lastErr   error
	attempts  int
	permanent int // consecutive permanent failures, reset by any success
	synced    bool

	// onFail, if set (by the informer, before Run), is called after every
	// recorded failure, without r.mu held.
	onFail func()
}

// newReflector returns a reflector feeding sink from lw.
func newReflector[T Object](lw ListerWatcher[T], sink deltaSink[T], opts ReflectorOptions) *reflector[T] {
	if opts.PageSize <= 0 {
		opts.PageSize = 500
	}
	if opts.InitialEventsTimeout <= 0 {
		opts.InitialEventsTimeout = time.Minute
	}
	if opts.MinWatchTimeout <= 0 {
		opts.MinWatchTimeout = 5 * time.Minute
	}
	if opts.ListTimeout <= 0 {
		opts.ListTimeout = time.Minute
	}
	if opts.WatchOpenTimeout <= 0 {
		opts.WatchOpenTimeout = time.Minute
	}
	r := &reflector[T]{lw: lw, sink: sink, opts: opts, clock: clock.Or(opts.Clock), log: opts.Logger,
		backoff: reflectorBackoff(opts.Backoff, opts.BackoffResetAfter),
		admit:   newAdmission(opts, namespaceOf(lw), reflect.TypeFor[T]())}
	r.hinting, _ = sink.(hintingSink[T])
	r.staging, _ = sink.(stagingSink[T])
	r.log = defaultlog.Or(r.log)
	return r
}

// Run drives the reflector until ctx is done. Failures are retried (with
// backoff) and reported through LastError, never returned.
func (r *reflector[T]) Run(ctx context.Context) {
	s := &state[T]{streaming: !r.opts.DisableStreaming, backoff: backoffState{cfg: r.backoff}}
	defer func() {
		if s.w != nil {
			s.w.Stop()
		}
		if s.staged != nil {
			s.staged.Abort()
		}
	}()
	for ctx.Err() == nil {
		wait := r.step(ctx, s, r.clock.Now())
		r.phase.Store(int32(s.phase))
		if wait <= 0 || ctx.Err() != nil {
			continue
		}
		r.log.Debug("reflector backing off", "reflector", r.opts.Name, "delay", wait, "phase", s.phase)
		c, stop := clock.NewTimer(r.clock, wait)
		select {
		case <-ctx.Done():
			stop()
		case <-c:
		}
	}
}

// Phase returns the phase the reflector is in (as of its last step).
func (r *reflector[T]) Phase() phase { return phase(r.phase.Load()) }

// LastSyncResourceVersion is the resourceVersion of the last list, event or
// bookmark applied (or being applied); "" before the first sync. It is set
// before a complete state is handed to the Sink, so whoever learns of the
// sync from the Sink sees it.
func (r *reflector[T]) LastSyncResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastRV
}

// LastError returns the cause of the last failed attempt and the number of
// failures so far. The error is cleared by a successful full sync.
func (r *reflector[T]) LastError() (error, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastErr, r.attempts
}

// Refused returns how many received objects the reflector refused to store
// (see [RefusedError]) and the last refusal, nil if none.
func (r *reflector[T]) Refused() (int, error) { return r.admit.counts() }

// admitted reports whether obj may be stored; a refusal is counted and
// logged, at Warn the first time and at Debug after that.
func (r *reflector[T]) admitted(obj T) *RefusedError {
	err := r.admit.check(obj)
	if err == nil {
		return nil
	}
	if n, _ := r.admit.counts(); n == 1 {
		r.log.Warn("reflector refused an object (further refusals are logged at debug level)", "reflector", r.opts.Name, "error", err)
	} else {
		r.log.Debug("reflector refused an object", "reflector", r.opts.Name, "error", err, "refused", n)
	}
	return err
}

// PermanentFailures returns how many calls in a row, up to now, failed with
// a permanent error (see [isPermanent]), and the last of them. Any
// successful call (a complete state fetched, a watch opened) and any
// other kind of failure reset the count to 0.
func (r *reflector[T]) PermanentFailures() (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.permanent == 0 {
		return 0, nil
	}
	return r.permanent, r.lastErr
}

func (r *reflector[T]) fail(err error) {
	r.log.Warn("reflector attempt failed", "reflector", r.opts.Name, "error", err)
	r.mu.Lock()
	r.lastErr = err
	r.attempts++
	if isPermanent(err) {
		r.permanent++
	} else {
		r.permanent = 0
	}
	r.mu.Unlock()
	if r.onFail != nil {
		r.onFail()
	}
}

// succeeded resets the streak of permanent failures.
func (r *reflector[T]) succeeded() {
	r.mu.Lock()
	r.permanent = 0
	r.mu.Unlock()
}

func (r *reflector[T]) setRV(rv string, synced bool) {
	r.mu.Lock()
	r.lastRV = rv
	if synced {
		r.synced = true
		r.lastErr = nil
		r.permanent = 0
	}
	r.mu.Unlock()
}

// step performs one action for the current phase, moves s to the next phase
// and returns how long to wait before the next step. now is the time the
// step starts; ctx ends any blocking call.
func (r *reflector[T]) step(ctx context.Context, s *state[T], now time.Time) time.Duration {
	switch s.phase {
	case phaseNeedState:
		if s.streaming && !s.listOnce {
			return r.openStream(ctx, s, now)
		}
		s.listOnce = false
		return r.list(ctx, s, now)
	case phaseStreaming:
		return r.collectInitial(ctx, s)
	case phaseNeedWatch:
		return r.openWatch(ctx, s, now)
	case phaseWatching:
		return r.consume(ctx, s)
	}
	return 0
}

// watchTimeout picks the timeoutSeconds of the next watch and records it in
// s, so that consume can bound the watch on the client side too.
func (r *reflector[T]) watchTimeout(s *state[T]) *int64 {
	min := int64(r.opts.MinWatchTimeout / time.Second)
	if min < 1 {
		min = 1
	}
	t := min + rand.Int64N(min)
	s.watchFor = time.Duration(t) * time.Second
	return &t
}

// watchGrace is how long past its timeoutSeconds a watch may stay open
// before the reflector gives up on it.
func watchGrace(timeout time.Duration) time.Duration {
	return max(2*time.Second, min(30*time.Second, timeout/4))
}

func (r *reflector[T]) openStream(ctx context.Context, s *state[T], now time.Time) time.Duration {
	yes := true
	opts := metav1.ListOptions{
		LabelSelector:        r.opts.LabelSelector,
		FieldSelector:        r.opts.FieldSelector,
		ResourceVersion:      s.relistFrom,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		SendInitialEvents:    &yes,
		AllowWatchBookmarks:  true,
		TimeoutSeconds:       r.watchTimeout(s),
	}
	w, shared, err := r.watch(ctx, opts)
	if err != nil {
		if ctx.Err() != nil {
			return 0
		}
		if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) || apierrors.IsMethodNotSupported(err) {
			// The server does not support streaming lists (an older
			// kube-apiserver, or WatchList disabled): not a failure; stop
			// asking and list from now on.
			s.streaming = false
			r.log.Debug("server refused a streaming list (sendInitialEvents); listing instead", "reflector", r.opts.Name, "error", err)
		} else {
			r.fail(err)
		}
		s.listOnce = true
		return 0
	}
	s.w, s.phase, s.shared = w, phaseStreaming, shared
	s.staged = r.stage()
	s.deadline = now.Add(r.opts.InitialEventsTimeout)
	return 0
}

// collectInitial reads a streaming watch until its end bookmark.
func (r *reflector[T]) collectInitial(ctx context.Context, s *state[T]) time.Duration {
	timer, stopTimer := clock.NewTimer(r.clock, s.deadline.Sub(r.clock.Now()))
	defer stopTimer()
	abandon := func(err error) time.Duration {
		s.w.Stop()
		s.staged.Abort()
		s.w, s.staged, s.phase = nil, nil, phaseNeedState
		if err != nil {
			r.fail(err)
		}
		s.listOnce = true
		return 0
	}
	for {
		select {
		case <-ctx.Done():
			return 0
		case <-timer:
			s.streaming = false
			return abandon(ErrInitialEventsNotFinished)
		case ev, ok := <-s.w.ResultChan():
			if !ok {
				err := watchErr(s.w)
				if err == nil {
					err = ErrInitialEventsNotFinished
				}
				if ctx.Err() != nil {
					return 0
				}
				return abandon(err)
			}
			switch ev.Type {
			case watch.Added, watch.Modified, watch.Deleted:
				obj, ok := ev.Object.(T)
				if !ok {
					return abandon(typeErr[T](ev.Object))
				}
				if err := r.admitted(obj); err != nil {
					if obj.GetName() == "" {
						return abandon(err)
					}
					continue
				}
				if ev.Type == watch.Deleted {
					s.staged.Remove(KeyOf(obj))
					continue
				}
				s.staged.Put(obj, s.shared, false)
			case watch.Bookmark:
				m, ok := ev.Object.(metav1.Object)
				if !ok {
					return abandon(typeErr[T](ev.Object))
				}
				s.rv = m.GetResourceVersion()
				if m.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true" {
					continue
				}
				st := s.staged
				s.staged = nil
				// The version first, so that whoever sees the sync
				// (WaitForSync) sees its resourceVersion too.
				r.setRV(s.rv, true)
				st.Commit(s.rv)
				s.relistFrom = s.rv
				if compressedStream(s.w) {
					// The server would gzip each later event on its
					// own; a watch from here on is sent plain.
					s.w.Stop()
					s.w, s.phase = nil, phaseNeedWatch
					return 0
				}
				s.phase, s.started, s.events = phaseWatching, r.clock.Now(), 0
				return 0
			case watch.Error:
				err := statusErr(ev.Object)
				if (isExpired(err) || isTooLarge(err)) && s.relistFrom != "" {
					s.relistFrom = ""
				}
				return abandon(err)
			}
		}
	}
}

// list fetches the complete state by paginated LIST and replaces the sink's.
func (r *reflector[T]) list(ctx context.Context, s *state[T], now time.Time) time.Duration {
	opts := metav1.ListOptions{
		LabelSelector:   r.opts.LabelSelector,
		FieldSelector:   r.opts.FieldSelector,
		ResourceVersion: s.relistFrom,
		Limit:           r.opts.PageSize,
	}
	if s.relistFrom != "" {
		opts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	}
	// The objects go to the sink as each page arrives; the sink's content
	// changes only when the last page has (Commit), and a list that fails
	// before leaves it as it was (Abort).
	st := r.stage()
	var rv string
	for {
		pageCtx, cancel := context.WithTimeout(ctx, r.opts.ListTimeout)
		page, err := r.lw.List(pageCtx, opts)
		timedOut := errors.Is(pageCtx.Err(), context.DeadlineExceeded) // before cancel, which sets Err too
		cancel()
		if err != nil {
			st.Abort()
			if ctx.Err() != nil {
				return 0
			}
			if timedOut {
				err = fmt.Errorf("%w: no complete LIST page after %s: %w", ErrListTimeout, r.opts.ListTimeout, err)
			}
			r.fail(err)
			if (isExpired(err) || isTooLarge(err)) && s.relistFrom != "" {
				// The version we asked for is unavailable: try the latest now.
				s.relistFrom = ""
				return 0
			}
			return s.backoff.next(now)
		}
		// On a relist, a changed object the sink keeps decoded is moved out
		// of the page, so that the page (whose unchanged items the sink
		// dropped in favour of the cached ones) can be freed.
		relist := r.hasSynced()
		for _, o := range page.Items {
			if r.admitted(o) != nil {
				continue
			}
			st.Put(o, false, relist)
		}
		if rv == "" || opts.Continue == "" {
			rv = page.ResourceVersion
		}
		if page.Continue == "" {
			break
		}
		opts = metav1.ListOptions{
			LabelSelector: r.opts.LabelSelector,
			FieldSelector: r.opts.FieldSelector,
			Limit:         r.opts.PageSize,
			Continue:      page.Continue,
		}
	}
	r.setRV(rv, true)
	st.Commit(rv)
	s.rv, s.relistFrom, s.phase = rv, rv, phaseNeedWatch
	return 0
}

func (r *reflector[T]) openWatch(ctx context.Context, s *state[T], now time.Time) time.Duration {
	opts := metav1.ListOptions{
		LabelSelector:       r.opts.LabelSelector,
		FieldSelector:       r.opts.FieldSelector,
		ResourceVersion:     s.rv,
		AllowWatchBookmarks: true,
		TimeoutSeconds:      r.watchTimeout(s),
	}
	w, shared, err := r.watch(ctx, opts)
	if err != nil {
		if ctx.Err() != nil {
			return 0
		}
		r.fail(err)
		if isExpired(err) {
			s.phase, s.relistFrom = phaseNeedState, s.rv
			return 0
		}
		return s.backoff.next(now)
	}
	r.succeeded()
	s.w, s.phase, s.started, s.events, s.shared = w, phaseWatching, now, 0, shared
	return 0
}

// shortWatch is how long a watch must live, or deliver at least one event,
// for its clean end to be followed by an immediate re-watch.
const shortWatch = time.Second

// consume applies events of the open watch until it ends.
func (r *reflector[T]) consume(ctx context.Context, s *state[T]) time.Duration {
	end := func(err error) time.Duration {
		s.w.Stop()
		s.w = nil
		s.phase = phaseNeedWatch
		now := r.clock.Now()
		s.backoff.watchLived(now.Sub(s.started))
		switch {
		case err == nil && (s.events > 0 || now.Sub(s.started) >= shortWatch):
			return 0
		case err == nil:
			// Closed at once without a word: do not spin.
			return s.backoff.next(now)
		case isExpired(err):
			r.fail(err)
			s.phase, s.relistFrom = phaseNeedState, s.rv
			return 0
		default:
			r.fail(err)
			return s.backoff.next(now)
		}
	}
	deadline := s.started.Add(s.watchFor + watchGrace(s.watchFor))
	stalled, stopTimer := clock.NewTimer(r.clock, deadline.Sub(r.clock.Now()))
	defer stopTimer()
	for {
		select {
		case <-ctx.Done():
			return 0
		case <-stalled:
			return end(fmt.Errorf("%w: still open %s after its timeout of %s", ErrWatchStalled, watchGrace(s.watchFor), s.watchFor))
		case ev, ok := <-s.w.ResultChan():
			if !ok {
				if ctx.Err() != nil {
					return 0
				}
				return end(watchErr(s.w))
			}
			s.events++
			switch ev.Type {
			case watch.Added, watch.Modified, watch.Deleted:
				obj, ok := ev.Object.(T)
				if !ok {
					return end(typeErr[T](ev.Object))
				}
				if err := r.admitted(obj); err != nil {
					if obj.GetName() == "" {
						// Nothing could key it: the stream is broken.
						return end(err)
					}
					continue
				}
				rv := obj.GetResourceVersion()
				if notAfter(rv, s.rv) {
					// A watch delivers events in increasing
					// resourceVersion after the version it started
					// from; an event at or before the last one applied
					// is a duplicate or a replay and would move the
					// cache back in time.
					r.log.Debug("dropping a watch event that is not newer than the last one", "reflector", r.opts.Name, "resourceVersion", rv, "last", s.rv)
					continue
				}
				obj = r.prepareWatched(s, obj)
				switch ev.Type {
				case watch.Added:
					r.sink.Add(obj)
				case watch.Modified:
					r.sink.Update(obj)
				default:
					r.sink.Delete(obj)
				}
				if rv != "" {
					// An object without a resourceVersion must not
					// make the next watch start from "now".
					s.rv = rv
					r.setRV(rv, false)
				}
			case watch.Bookmark:
				if m, ok := ev.Object.(metav1.Object); ok && m.GetResourceVersion() != "" && !notAfter(m.GetResourceVersion(), s.rv) {
					s.rv = m.GetResourceVersion()
					r.setRV(s.rv, false)
				}
			case watch.Error:
				return end(statusErr(ev.Object))
			}
		}
	}
}

func (r *reflector[T]) hasSynced() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.synced
}

// detach returns a shallow copy of *o in its own allocation. List adapters
// often hand out pointers into one page array (&list.Items[i]); one
// retained item would keep the whole page alive.
func detach[T Object](o T) T {
	v := reflect.ValueOf(o)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return o
	}
	c := reflect.New(v.Elem().Type())
	c.Elem().Set(v.Elem())
	if t, ok := c.Interface().(T); ok {
		return t
	}
	return o
}

func watchErr(w watch.Interface) error {
	if e, ok := w.(interface{ Err() error }); ok {
		return e.Err()
	}
	return nil
}

// compressedStream reports whether w says the server compresses it (see
// the ListerWatcher contract).
func compressedStream(w watch.Interface) bool {
	c, ok := w.(interface{ Compressed() bool })
	return ok && c.Compressed()
}

// errUnknownWatchError stands for an ERROR event without a Status object.
var errUnknownWatchError = errors.New("watch error event without a Status")

func statusErr(obj any) error {
	if st, ok := obj.(*metav1.Status); ok {
		return apierrors.FromObject(st)
	}
	return errUnknownWatchError
}

func typeErr[T Object](obj any) error {
	return &TypeError{Want: reflect.TypeFor[T](), Got: reflect.TypeOf(obj)}
}

// notAfter reports whether resourceVersion rv is known to be at or before
// last. Versions that are not comparable integers (a server not backed by
// etcd) are never filtered.
func notAfter(rv, last string) bool {
	if rv == "" || last == "" {
		return false
	}
	c, err := resourceversion.CompareResourceVersion(rv, last)
	return err == nil && c <= 0
}

func isExpired(err error) bool { return apierrors.IsResourceExpired(err) || apierrors.IsGone(err) }

func isTooLarge(err error) bool {
	return apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge)
}

// watch opens a watch, passing the sink's hints when both sides take
// them; shared reports whether the watch shares its objects' values
// (codec.Hints.Share).
//
// A watch that has not opened within WatchOpenTimeout is abandoned: its
// context is cancelled and the error wraps ErrWatchStalled.
func (r *reflector[T]) watch(ctx context.Context, opts metav1.ListOptions) (w watch.Interface, shared bool, err error) {
	wctx, cancel := context.WithCancelCause(ctx)
	timeout := r.opts.WatchOpenTimeout
	timer := r.clock.AfterFunc(timeout, func() { cancel(errWatchOpenTimeout) })
	if hw, ok := r.lw.(hintedWatcher); ok && r.hinting != nil {
		hints := r.hinting.watchHints()
		w, err = hw.WatchHinted(wctx, opts, hints)
		shared = hints.Share != nil
	} else {
		w, err = r.lw.Watch(wctx, opts)
	}
	timer.Stop()
	if err == nil && w == nil {
		err = errors.New("ListerWatcher returned neither a watch nor an error")
	}
	if err != nil {
		if ctx.Err() == nil && errors.Is(context.Cause(wctx), errWatchOpenTimeout) {
			err = fmt.Errorf("%w: not open after %s: %w", ErrWatchStalled, timeout, err)
		}
		cancel(nil)
		return nil, false, err
	}
	return &openWatch{Interface: w, cancel: cancel}, shared, nil
}

// errWatchOpenTimeout is the cause of a watch context cancelled because
// the watch did not open in time.
var errWatchOpenTimeout = errors.New("watch did not open in time")

// openWatch is a watch with the context it was opened with, cancelled when
// it is stopped. It keeps the Err and Compressed of the watch it wraps.
type openWatch struct {
	watch.Interface
	cancel context.CancelCauseFunc
}

func (w *openWatch) Stop() {
	w.Interface.Stop()
	w.cancel(nil)
}

func (w *openWatch) Err() error { return watchErr(w.Interface) }

func (w *openWatch) Compressed() bool { return compressedStream(w.Interface) }

// prepareWatched is Sink.Prepare for an object of the current watch.
func (r *reflector[T]) prepareWatched(s *state[T], obj T) T {
	if s.shared {
		return r.hinting.prepareShared(obj)
	}
	return r.sink.Prepare(obj)
}

// stage opens a complete state on the sink: its own stager when it is a
// stagingSink, else one that collects the prepared objects and hands them
// to Replace.
func (r *reflector[T]) stage() stager[T] {
	if r.staging != nil {
		return r.staging.stage()
	}
	return &listStager[T]{r: r}
}

// listStager is the stager of a sink that is not a stagingSink (a test's):
// it collects the prepared objects and hands them to Replace.
type listStager[T Object] struct {
	r     *reflector[T]
	items []T
	index map[Key]int
}

func (l *listStager[T]) Put(obj T, shared, detachIt bool) {
	var p T
	if shared {
		p = l.r.hinting.prepareShared(obj)
	} else {
		p = l.r.sink.Prepare(obj)
	}
	if detachIt && any(p) == any(obj) {
		p = detach(p)
	}
	if l.index == nil {
		l.index = map[Key]int{}
	}
	k := KeyOf(p)
	if i, ok := l.index[k]; ok {
		l.items[i] = p
		return
	}
	l.index[k] = len(l.items)
	l.items = append(l.items, p)
}

func (l *listStager[T]) Remove(k Key) {
	i, ok := l.index[k]
	if !ok {
		return
	}
	last := len(l.items) - 1
	l.items[i] = l.items[last]
	l.index[KeyOf(l.items[i])] = i
	var zero T
	l.items[last] = zero
	l.items = l.items[:last]
	delete(l.index, k)
}

func (l *listStager[T]) Commit(resourceVersion string) {
	items := l.items
	l.items, l.index = nil, nil
	l.r.sink.Replace(items, resourceVersion)
}

func (l *listStager[T]) Abort() { l.items, l.index = nil, nil }
