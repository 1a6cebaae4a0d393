package informer

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/internal/codec"
	"github.com/kubego/kubego/internal/codec/dedup"
	"github.com/kubego/kubego/internal/defaultlog"
)

// MutationDetection selects whether an informer checks its cached objects
// for in-place mutation.
type MutationDetection int

const (
	// DetectAuto: on when the binary is a test (testing.Testing()), off
	// otherwise.
	DetectAuto MutationDetection = iota
	// DetectOn: always on (costs a deep copy of every cached object).
	DetectOn
	// DetectOff: always off.
	DetectOff
)

// Options configures an [Informer]. The zero value is valid.
type Options[T Object] struct {
	// Name identifies the informer in logs and errors; "" uses the Go type.
	Name string
	// Reflector configures listing and watching (selectors, page size,
	// streaming, backoff, timeouts).
	Reflector ReflectorOptions
	// Indexers are extra named indexes; NamespaceIndex is always present.
	Indexers map[string]IndexFunc[T]
	// Transform, if set, runs on every received object before it is
	// stored, on the informer's goroutine: it must be quick, must not block,
	// and may modify and return its argument (which nobody else holds yet).
	Transform func(T) T
	// KeepManagedFields keeps metadata.managedFields, which are dropped by
	// default because they are large and rarely needed by controllers.
	KeepManagedFields bool
	// DisableSharing keeps every cached object's own copies of its values.
	// By default an informer makes the objects it caches share equal
	// strings, string maps (labels, annotations, selectors) and resource
	// lists, so that the Pods of one Deployment hold their image, env
	// names and requests once (see the package documentation, "Memory").
	// Sharing is sound because cached objects are read-only; it costs a few
	// microseconds per received object.
	DisableSharing bool
	// Decoded keeps cached objects as decoded Go structs shared by every
	// reader, instead of the default compact form. By default an informer
	// of a type with a protobuf encoding (every built-in kind) keeps each
	// cached object as that encoding
	// (without managedFields unless KeepManagedFields) and decodes it on
	// every read: Get, List, the Lister, a Reader and each handler's
	// callbacks receive an object that nothing else holds, so a caller may
	// modify what it gets. Labels are matched and the namespace, name and
	// resourceVersion read on the bytes; the values of Indexers are computed
	// when an object is stored. The cache is several times smaller, and
	// every read pays a decode (see the package documentation, "Memory").
	// Set Decoded for a handler or reader that goes through every cached
	// object often (a List of the whole cache per reconcile): reads then
	// cost no decode, but hand out shared objects that must not be
	// modified (Sharing and mutation detection apply to decoded caches
	// only). Types without a protobuf encoding (custom resources' Go types,
	// unstructured objects) are always kept decoded.
	Decoded bool
	// DisableCompression keeps every encoding of a compact cache as it
	// is. By default an encoding whose part after the metadata is 2 KiB
	// or more (a ConfigMap or Secret of a few KiB, say) is kept with that
	// part compressed (Zstandard), when that saves an eighth of the
	// encoding: the metadata stays as it is, so the namespace, name,
	// resourceVersion and labels are still read in place (a Pod of a
	// kilobyte or two is never compressed). A read of a compressed object
	// first decompresses it into a buffer of its own (an allocation of
	// its size, and a microsecond or two per KiB), and storing one costs
	// its compression. Set
	// it for a cache of large objects read often and whole, where that
	// time matters more than the memory (see the package documentation,
	// "Memory"). Decoded caches are never compressed.
	DisableCompression bool
	// MutationDetection: see [MutationDetection]. The zero value is DetectAuto.
	MutationDetection MutationDetection
	// MutationReporter receives each detected mutation. nil means: log it at
	// error level and record it; recorded mutations are returned by
	// CheckMutations and by Run. Tests may set it to a function calling
	// t.Error. It is called from the goroutine that detected the mutation
	// (the informer's writer, or the caller of CheckMutations) and must
	// not block.
	MutationReporter func(*MutationError)
	// MutationCheckInterval, if positive, checks every cached object at
	// that period while detection is on. Objects are always checked when
	// they are written and when the informer stops.
	MutationCheckInterval time.Duration
	// Logger receives the informer's records. Nil means warnings and errors
	// (a failing source, list or watch, a detected mutation) go to
	// slog.Default() and debug records nowhere.
	Logger *slog.Logger
	// Clock is the time source; nil means the wall clock.
	Clock clock.Clock
	// FailFastAfter is how many calls in a row (LIST, WATCH, or obtaining
	// the ListerWatcher from a Backend) must fail with a permanent error
	// (401, 403, 404, or wrapping [ErrPermanent]) before
	// WaitForSync stops waiting and returns a *SyncError with Permanent
	// set. 0 means 3: with the default streaming start a 403 costs a
	// failed stream and a failed LIST at once, then the third failure
	// comes after one backoff delay (0.8–1.6 s), so a grant made a moment
	// ago still gets its chance. A negative value disables it: WaitForSync
	// then waits for ctx as before. The informer keeps retrying either way.
	FailFastAfter int
}

// defaultFailFastAfter is the zero value's Options.FailFastAfter.
const defaultFailFastAfter = 3

// Informer keeps a cache of one resource in step with the API server and
// tells registered handlers about every change: one reflector, one store,
// many handlers. Create one with [New] or, sharing it in a process, with a
// [Factory].
//
// All methods are safe for concurrent use. Objects it hands out (to
// handlers, through the Lister) are each the caller's own in a compact
// cache, the default for built-in kinds, and shared and read-only in a
// decoded one (see Options.Decoded).
type Informer[T Object] struct {
	name   string
	opts   Options[T]
	getLW  func(ctx context.Context) (ListerWatcher[T], error)
	store  *cacheStore[T]
	detect *detector[T]
	log    *slog.Logger
	clock  clock.Clock

	refl     atomic.Pointer[reflector[T]]
	started  atomic.Bool
	syncedCh chan struct{}
	stopped  chan struct{}

	// write serialises store writes, fan-out, handler registration and
	// resync; it guards the fields below.
	write     sync.Mutex
	synced    bool
	done      bool
	runDone   <-chan struct{} // the run context's Done, nil before Run
	listeners []*listener[T]
	wg        sync.WaitGroup
	poke      chan struct{} // resync schedule changed

	srcMu   sync.Mutex
	srcErr  error
	srcTrys int
	srcPerm int           // consecutive permanent Backend failures
	failSig chan struct{} // closed and replaced at every failure

	release func() // set by a Factory

	share *dedup.Table // nil with Options.DisableSharing; used by Prepare only
}

// New returns an informer over lw. Call Run to start it.
func New[T Object](lw ListerWatcher[T], opts Options[T]) *Informer[T] {
	return newInformer(func(context.Context) (ListerWatcher[T], error) { return lw, nil }, opts)
}

func newInformer[T Object](getLW func(context.Context) (ListerWatcher[T], error), opts Options[T]) *Informer[T] {
	i := &Informer[T]{opts: opts, getLW: getLW, name: opts.Name, log: opts.Logger, clock: clock.Or(opts.Clock),
		syncedCh: make(chan struct{}), stopped: make(chan struct{}), poke: make(chan struct{}, 1),
		failSig: make(chan struct{})}
	if i.name == "" {
		i.name = reflect.TypeFor[T]().String()
	}
	i.log = defaultlog.Or(i.log)
	on := opts.MutationDetection == DetectOn || (opts.MutationDetection == DetectAuto && testing.Testing())
	if on {
		report := opts.MutationReporter
		if report == nil {
			lg := i.log
			report = func(err *MutationError) {
				lg.Error("cached object mutated", "informer", err.Informer, "key", err.Key.String(), "changed", err.Paths)
			}
		}
		i.detect = newDetector[T](i.name, report)
	}
	var pack *packer[T]
	if !opts.Decoded {
		pack = newPacker[T]()
	}
	if pack != nil {
		i.detect = nil // every read hands out an object of its own
		pack.plainOnly = opts.DisableCompression
	}
	i.store = newStore(opts.Indexers, i.detect, pack)
	if !opts.DisableSharing && pack == nil {
		i.share = dedup.New(dedup.Options{})
	}
	return i
}

// Name returns the informer's name.
func (i *Informer[T]) Name() string { return i.name }

// Lister returns a lister over the cache.
func (i *Informer[T]) Lister() Lister[T] { return Lister[T]{store: i.store} }

// HasSynced reports whether the first complete state has been stored.
func (i *Informer[T]) HasSynced() bool {
	select {
	case <-i.syncedCh:
		return true
	default:
		return false
	}
}

// LastSyncResourceVersion returns the resourceVersion of the last list,
// event or bookmark applied (or being applied); "" before the first sync.
// Once HasSynced is true or WaitForSync has returned nil, it is at least
// the resourceVersion of the synced state.
func (i *Informer[T]) LastSyncResourceVersion() string {
	if r := i.refl.Load(); r != nil {
		return r.LastSyncResourceVersion()
	}
	return ""
}

// Refused returns how many received objects the informer refused to
// store (see [RefusedError]: no name, another namespace, another kind) and
// the last refusal, nil if none.
func (i *Informer[T]) Refused() (int, error) {
	if r := i.refl.Load(); r != nil {
		return r.Refused()
	}
	return 0, nil
}

// WaitForSync blocks until the cache has synced (nil) or ctx ends, and then
// returns a *[SyncError] carrying the cause of the last failed attempt:
// an *apierrors.StatusError for 403 Forbidden or 404 NotFound (resource not
// served), [ErrInitialEventsNotFinished], [ErrNotStarted], [ErrStopped], ...
// It returns early with ErrStopped as cause if Run ends before the sync,
// and returns early with Permanent set once Options.FailFastAfter calls in
// a row have failed with a permanent error (401, 403, 404, or one
// wrapping [ErrPermanent]): waiting longer would not help. After that early return
// the informer keeps running and retrying (RBAC may be granted, a CRD
// installed); a later call returns nil once it has synced.
func (i *Informer[T]) WaitForSync(ctx context.Context) error {
	return i.waitSync(ctx, nil)
}

// waitSync is WaitForSync, also returning ErrHandlerRemoved once removed
// is closed (a nil removed never is).
func (i *Informer[T]) waitSync(ctx context.Context, removed <-chan struct{}) error {
	for {
		select {
		case <-removed:
			return ErrHandlerRemoved
		case <-i.syncedCh:
			return nil
		default:
		}
		sig := i.failSignal()
		if err := i.permanentFailure(); err != nil {
			return err
		}
		select {
		case <-i.syncedCh:
			return nil
		case <-i.stopped:
			return &SyncError{Informer: i.name, Cause: ErrStopped}
		case <-removed:
			return ErrHandlerRemoved
		case <-sig:
			// A failure was recorded: check the streak again.
		case <-ctx.Done():
			select {
			case <-i.syncedCh:
				return nil
			default:
			}
			cause, n := i.lastError()
			return &SyncError{Informer: i.name, Cause: cause, Attempts: n, Ctx: ctx.Err()}
		}
	}
}

// failSignal returns a channel closed at the next recorded failure.
func (i *Informer[T]) failSignal() <-chan struct{} {
	i.srcMu.Lock()
	defer i.srcMu.Unlock()
	return i.failSig
}

// failed wakes WaitForSync callers after a failure was recorded.
func (i *Informer[T]) failed() {
	i.srcMu.Lock()
	close(i.failSig)
	i.failSig = make(chan struct{})
	i.srcMu.Unlock()
}

// permanentFailure returns the early *SyncError of WaitForSync, or nil
// while the failures (if any) are not permanent enough to stop waiting.
func (i *Informer[T]) permanentFailure() error {
	limit := i.opts.FailFastAfter
	if limit < 0 {
		return nil
	}
	if limit == 0 {
		limit = defaultFailFastAfter
	}
	i.srcMu.Lock()
	n, cause := i.srcPerm, i.srcErr
	i.srcMu.Unlock()
	if r := i.refl.Load(); r != nil {
		n, cause = r.PermanentFailures()
	}
	if n < limit {
		return nil
	}
	_, attempts := i.lastError()
	return &SyncError{Informer: i.name, Cause: cause, Attempts: attempts, Permanent: true}
}

func (i *Informer[T]) lastError() (error, int) {
	if !i.started.Load() {
		return ErrNotStarted, 0
	}
	i.srcMu.Lock()
	err, n := i.srcErr, i.srcTrys
	i.srcMu.Unlock()
	if r := i.refl.Load(); r != nil {
		rerr, rn := r.LastError()
		if rerr != nil {
			err = rerr
		}
		n += rn
	}
	return err, n
}

// CheckMutations compares every cached object with the copy taken when it
// was stored, reports new differences, and returns all mutations detected
// so far (joined *[MutationError]s), or nil. It returns nil when detection
// is off.
func (i *Informer[T]) CheckMutations() error {
	i.store.checkAll()
	return i.detect.errors()
}

// Release tells the [Factory] that created the informer that this user no
// longer needs it; when the last user releases it, it stops and its cache is
// freed. For an informer made with [New] it does nothing: cancel Run's
// context instead.
func (i *Informer[T]) Release() {
	if i.release != nil {
		i.release()
	}
}

// AddEventHandler registers h. If the informer has synced, h first receives
// a synthetic OnAdd(obj, true) for every cached object; it then receives
// every later change. The error is [ErrStopped] if Run has returned.
func (i *Informer[T]) AddEventHandler(h Handler[T], opts HandlerOptions) (*Registration, error) {
	l := newListener(h, opts)
	l.pack = i.store.pack
	i.write.Lock()
	defer i.write.Unlock()
	if i.done {
		return nil, ErrStopped
	}
	if i.synced {
		batch := i.store.deltas(deltaAdded)
		for j := range batch {
			batch[j].Initial = true
		}
		l.enqueue(batch, true)
	}
	if l.resync > 0 {
		l.next = i.clock.Now().Add(l.resync)
		select {
		case i.poke <- struct{}{}:
		default:
		}
	}
	i.listeners = append(i.listeners, l)
	if i.runDone != nil {
		i.startListener(l)
	}
	var once sync.Once
	return &Registration{
		l:       l,
		isSyncd: i.HasSynced,
		waitInf: i.waitSync,
		name:    i.name,
		stopped: i.stopped,
		remove: func() {
			once.Do(func() {
				l.removed.Store(true)
				close(l.stop)
				i.write.Lock()
				i.listeners = slices.DeleteFunc(i.listeners, func(x *listener[T]) bool { return x == l })
				i.write.Unlock()
			})
		},
	}, nil
}

// startListener runs with i.write held.
func (i *Informer[T]) startListener(l *listener[T]) {
	if l.started {
		return
	}
	l.started = true
	i.wg.Add(1)
	done := i.runDone
	go func() {
		defer i.wg.Done()
		l.run(done)
	}()
}

// Run lists, watches and dispatches until ctx is done, then stops every
// handler goroutine and returns. Its result is nil, [ErrAlreadyRunning], or
// the mutations the detector found (joined *MutationError), so a test that
// mutates a cached object fails loudly when it checks Run's error.
func (i *Informer[T]) Run(ctx context.Context) error {
	if !i.started.CompareAndSwap(false, true) {
		return ErrAlreadyRunning
	}
	defer close(i.stopped)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	i.write.Lock()
	i.runDone = runCtx.Done()
	for _, l := range i.listeners {
		i.startListener(l)
	}
	i.write.Unlock()

	var bg sync.WaitGroup
	bg.Go(func() { i.resyncLoop(runCtx) })
	if i.detect != nil && i.opts.MutationCheckInterval > 0 {
		bg.Go(func() { i.mutationLoop(runCtx) })
	}

	if lw := i.source(runCtx); lw != nil {
		ropts := i.opts.Reflector
		if ropts.Name == "" {
			ropts.Name = i.name
		}
		if ropts.Logger == nil {
			ropts.Logger = i.opts.Logger
		}
		if ropts.Clock == nil {
			ropts.Clock = i.opts.Clock
		}
		r := newReflector[T](lw, (*sink[T])(i), ropts)
		r.onFail = i.failed
		i.refl.Store(r)
		r.Run(runCtx)
	}
	cancel()
	bg.Wait()

	i.write.Lock()
	i.done = true
	i.write.Unlock()
	i.wg.Wait()
	return i.CheckMutations()
}

// source obtains the ListerWatcher, retrying with backoff; nil when ctx ends.
func (i *Informer[T]) source(ctx context.Context) ListerWatcher[T] {
	b := backoffState{cfg: reflectorBackoff(i.opts.Reflector.Backoff, i.opts.Reflector.BackoffResetAfter)}
	for {
		lw, err := i.getLW(ctx)
		if err == nil {
			i.srcMu.Lock()
			i.srcPerm = 0
			i.srcMu.Unlock()
			return lw
		}
		if ctx.Err() != nil {
			return nil
		}
		i.log.Warn("informer source failed", "informer", i.name, "error", err)
		i.srcMu.Lock()
		i.srcErr, i.srcTrys = err, i.srcTrys+1
		if isPermanent(err) {
			i.srcPerm++
		} else {
			i.srcPerm = 0
		}
		i.srcMu.Unlock()
		i.failed()
		c, stop := clock.NewTimer(i.clock, b.next(i.clock.Now()))
		select {
		case <-ctx.Done():
			stop()
			return nil
		case <-c:
		}
	}
}

// resyncLoop re-delivers the cache to handlers whose resync period is due.
func (i *Informer[T]) resyncLoop(ctx context.Context) {
	for {
		i.write.Lock()
		var next time.Time
		now := i.clock.Now()
		var due []*listener[T]
		for _, l := range i.listeners {
			if l.resync <= 0 {
				continue
			}
			if !now.Before(l.next) {
				if i.synced {
					due = append(due, l)
				}
				l.next = now.Add(l.resync)
			}
			if next.IsZero() || l.next.Before(next) {
				next = l.next
			}
		}
		if len(due) > 0 {
			batch := i.store.deltas(deltaSync)
			for _, l := range due {
				l.enqueue(batch, false)
			}
		}
		i.write.Unlock()
		var wait <-chan time.Time
		stop := func() bool { return false }
		if !next.IsZero() {
			wait, stop = clock.NewTimer(i.clock, next.Sub(now))
		}
		select {
		case <-ctx.Done():
			stop()
			return
		case <-i.poke:
			stop()
		case <-wait:
		}
	}
}

func (i *Informer[T]) mutationLoop(ctx context.Context) {
	for {
		c, stop := clock.NewTimer(i.clock, i.opts.MutationCheckInterval)
		select {
		case <-ctx.Done():
			stop()
			return
		case <-c:
			i.store.checkAll()
		}
	}
}

// fanout runs with i.write held.
func (i *Informer[T]) fanout(batch []change[T], initial bool) {
	for _, l := range i.listeners {
		l.enqueue(batch, initial)
	}
}

// sink is the informer seen as the reflector's Sink; a distinct type keeps
// these methods out of Informer's API.
type sink[T Object] Informer[T]

func (s *sink[T]) Prepare(obj T) T { return s.prepare(obj, false) }

// prepareShared implements hintingSink: obj came from a watch that shared
// its values through i.share already.
func (s *sink[T]) prepareShared(obj T) T { return s.prepare(obj, true) }

func (s *sink[T]) prepare(obj T, shared bool) T {
	i := (*Informer[T])(s)
	if i.store.pack != nil {
		return s.prepareCompact(obj)
	}
	old, held := i.store.Get(KeyOf(obj))
	if held && obj.GetResourceVersion() != "" && old.GetResourceVersion() == obj.GetResourceVersion() {
		// A relisted object that did not change: keep the one already
		// cached, so the new copy is garbage at once and a relist does not
		// double memory.
		return old
	}
	if !i.opts.KeepManagedFields {
		dropManagedFields(obj)
	}
	if i.opts.Transform != nil {
		obj = i.opts.Transform(obj)
	}
	if i.share != nil && !shared {
		if held {
			// An update: most of it equals the cached version.
			i.share.ObjectLike(obj, old)
		} else {
			i.share.Object(obj)
		}
	}
	return obj
}

// prepareCompact is prepare for a compact cache: obj is encoded at once
// and a stand-in returned (see Store.prepack). A complete state being
// received is stored by sinkStager instead, without stand-ins.
func (s *sink[T]) prepareCompact(obj T) T {
	i := (*Informer[T])(s)
	if i.store.isPending(obj) {
		return obj // a stand-in made by known
	}
	if held := i.store.heldPacked(KeyOf(obj)); held.pk.ok() && obj.GetResourceVersion() != "" && held.pk.hasRV(obj.GetResourceVersion()) {
		// Unchanged: the store keeps the encoding it holds.
		return i.store.prepack(obj, held)
	}
	if !i.opts.KeepManagedFields {
		dropManagedFields(obj)
	}
	if i.opts.Transform != nil {
		obj = i.opts.Transform(obj)
	}
	return i.store.prepack(obj, prepared{})
}

// dropManagedFields removes obj's metadata.managedFields. An unstructured
// object loses the key from its map: Unstructured.GetManagedFields would
// convert the whole list through JSON just to see whether there is one
// (a quarter of all a dynamic informer allocated while syncing Pods).
func dropManagedFields(obj Object) {
	if u, ok := obj.(interface{ UnstructuredContent() map[string]any }); ok {
		if md, ok := u.UnstructuredContent()["metadata"].(map[string]any); ok {
			delete(md, "managedFields")
		}
		return
	}
	if obj.GetManagedFields() != nil {
		obj.SetManagedFields(nil)
	}
}

// watchHints implements hintingSink.
func (s *sink[T]) watchHints() codec.Hints {
	h := codec.Hints{Known: s.known, DropManagedFields: !s.opts.KeepManagedFields}
	if s.share != nil && s.opts.Transform == nil {
		// With a transform, sharing waits until it has run: a transform
		// may change the object it is given, so its maps must be its own.
		h.Share = s.share
	}
	return h
}

// known answers codec.Hints.Known from the store, which is safe for
// concurrent use.
func (s *sink[T]) known(namespace, name, resourceVersion string) (runtime.Object, bool) {
	i := (*Informer[T])(s)
	if i.store.pack != nil {
		// A compact cache hands back a stand-in carrying the encoding it
		// holds (see Store.prepack): the event is not decoded, and if an
		// older event of the same object is applied before this one, the
		// stand-in still stores this state.
		k := Key{Namespace: namespace, Name: name}
		if held := i.store.heldPacked(k); held.pk.ok() && held.pk.hasRV(resourceVersion) {
			return i.store.prepackHeld(k, resourceVersion, held), true
		}
		return nil, false
	}
	if old, ok := i.store.Get(Key{Namespace: namespace, Name: name}); ok && old.GetResourceVersion() == resourceVersion {
		return old, true
	}
	return nil, false
}

func (s *sink[T]) Replace(items []T, _ string) {
	i := (*Informer[T])(s)
	i.write.Lock()
	defer i.write.Unlock()
	first := !i.synced
	i.fanout(i.store.replace(items, first), first)
	i.store.settle()
	if first {
		i.synced = true
		close(i.syncedCh)
	}
}

// stage implements stagingSink: a complete state is written into an open
// replacement of the store as it arrives (see replacement), so that the
// reflector holds no list and a compact cache encodes each object at once.
func (s *sink[T]) stage() stager[T] {
	return &sinkStager[T]{s: s, r: s.store.beginReplace()}
}

// sinkStager is the informer's stager.
type sinkStager[T Object] struct {
	s *sink[T]
	r *replacement[T]
}

func (st *sinkStager[T]) Put(obj T, shared, detachIt bool) {
	i := (*Informer[T])(st.s)
	if i.store.pack == nil {
		p := st.s.prepare(obj, shared)
		if detachIt && any(p) == any(obj) {
			p = detach(p)
		}
		st.r.put(p)
		return
	}
	// A compact cache: the object is encoded now and dropped (no stand-in
	// is made), or, unchanged, keeps the encoding held.
	if !i.store.isPending(obj) {
		held := i.store.heldPacked(KeyOf(obj))
		if !held.pk.ok() || obj.GetResourceVersion() == "" || !held.pk.hasRV(obj.GetResourceVersion()) {
			if !i.opts.KeepManagedFields {
				dropManagedFields(obj)
			}
			if i.opts.Transform != nil {
				obj = i.opts.Transform(obj)
			}
		}
	}
	st.r.put(obj)
}

func (st *sinkStager[T]) Remove(k Key) { st.r.remove(k) }

func (st *sinkStager[T]) Commit(string) {
	i := (*Informer[T])(st.s)
	i.write.Lock()
	defer i.write.Unlock()
	first := !i.synced
	i.fanout(st.r.commit(first), first)
	i.store.settle()
	if first {
		i.synced = true
		close(i.syncedCh)
	}
}

func (st *sinkStager[T]) Abort() { st.r.abort() }

func (s *sink[T]) Add(obj T)    { s.upsert(obj) }
func (s *sink[T]) Update(obj T) { s.upsert(obj) }

func (s *sink[T]) upsert(obj T) {
	i := (*Informer[T])(s)
	i.write.Lock()
	defer i.write.Unlock()
	d := i.store.put(obj)
	if !d.objP.ok() {
		d.Object = obj
	}
	i.fanout([]change[T]{d}, false)
}

func (s *sink[T]) Delete(obj T) {
	i := (*Informer[T])(s)
	i.write.Lock()
	defer i.write.Unlock()
	_, existed := i.store.remove(KeyOf(obj))
	if !existed {
		i.store.forget(obj)
		return // already gone: never deliver a second delete
	}
	d := change[T]{Type: deltaDeleted, Object: obj}
	if i.store.pack != nil {
		// Each handler gets its own copy of the final state.
		if pk, ok := i.store.finalState(obj); ok {
			d = change[T]{Type: deltaDeleted, objP: pk}
		}
	}
	i.fanout([]change[T]{d}, false)
}

// String describes the informer.
func (i *Informer[T]) String() string { return fmt.Sprintf("informer %s", i.name) }

// AddIndexers adds named indexes to the cache (names already present are
// left alone) and indexes what is cached now. It may be called at any time.
func (i *Informer[T]) AddIndexers(indexers map[string]IndexFunc[T]) {
	i.write.Lock()
	defer i.write.Unlock()
	i.store.addIndexers(indexers)
}
