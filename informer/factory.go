package informer

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"reflect"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/internal/defaultlog"
)

// FactoryOptions configures a [Factory]. The zero value is valid.
type FactoryOptions struct {
	// Reflector is the base ReflectorOptions of every informer (backoff,
	// streaming, timeouts); selectors come from SharedOptions.
	Reflector ReflectorOptions
	// MutationDetection, MutationReporter and MutationCheckInterval apply
	// to every informer (see Options).
	MutationDetection     MutationDetection
	MutationReporter      func(*MutationError)
	MutationCheckInterval time.Duration
	// Logger receives records of every informer. Nil means warnings and
	// errors go to slog.Default() and debug records nowhere.
	Logger *slog.Logger
	// Clock is the time source; nil means the wall clock.
	Clock clock.Clock
	// FailFastAfter applies to every informer (see Options.FailFastAfter):
	// 0 means 3 permanent failures in a row, negative disables.
	FailFastAfter int
	// OneInformerPerType gives each Go type (each resource, for
	// unstructured and metadata informers) one set of SharedOptions for
	// the factory's lifetime, and so at most one informer: the first
	// request fixes the options, and a later request with other options
	// is refused with an *OptionsConflictError instead of getting a
	// second watch and cache (see the package documentation, "One
	// informer per type"). A manager.Manager's factory always has it.
	OneInformerPerType bool
}

// SharedOptions selects and shapes one informer of a [Factory]. Informers with
// equal options (and the same Go type or resource) are shared.
type SharedOptions struct {
	// Namespace: "" means all namespaces.
	Namespace string
	// LabelSelector and FieldSelector restrict the cached objects.
	LabelSelector string
	FieldSelector string
	// Resource overrides the group/version/resource of a typed informer;
	// normally the Backend derives it from the Go type.
	Resource schema.GroupVersionResource
	// Transform runs on each object before it is stored (see
	// Options.Transform); it must return an object of the same Go type.
	// Informers are shared only between callers giving the same
	// TransformName; a Transform without a TransformName gets an informer
	// of its own.
	Transform     func(Object) Object
	TransformName string
	// KeepManagedFields keeps metadata.managedFields (dropped by default).
	KeepManagedFields bool
	// DisableSharing: see Options.DisableSharing.
	DisableSharing bool
	// Decoded keeps the cached objects decoded and shared instead of
	// compact: see Options.Decoded. Informers are shared only between
	// callers giving the same Decoded.
	Decoded bool
	// DisableCompression keeps a compact cache's large encodings
	// uncompressed: see Options.DisableCompression. Informers are shared
	// only between callers giving the same DisableCompression.
	DisableCompression bool
	// Indexers are added to the informer's cache (see Informer.AddIndexers).
	Indexers map[string]func(Object) []string
}

type factoryKey struct {
	typ       reflect.Type
	form      Form
	gvr       schema.GroupVersionResource
	ns        string
	labels    string
	fields    string
	transform string
	unique    uint64 // non-zero for an unnamed transform: never shared
	keepMF    bool
	distinct  bool
	decoded   bool
	plain     bool
}

// shared is the type-erased view of an Informer[T] the factory manages.
type shared interface {
	Run(ctx context.Context) error
	WaitForSync(ctx context.Context) error
	Name() string
	HasSynced() bool
	clearCache()
}

func (i *Informer[T]) clearCache() { i.store.clear() }

type factoryEntry struct {
	inf     shared
	typed   any // the *Informer[T]
	refs    int
	cancel  context.CancelFunc
	done    chan struct{}
	started bool
	// lazy: created for a lazy Reader's first read and asked for by no
	// one else since; not part of SyncStates.
	lazy bool
}

// Factory creates informers on demand and shares them: a process holds one
// informer per (Go type or resource, form, namespace, selectors, transform,
// managedFields choice). Informers are reference counted: each Acquire,
// AcquireResource or AcquireMetadata call counts one user, each
// Informer.Release one less; the last Release stops the informer and frees
// its cache.
//
// All methods are safe for concurrent use.
type Factory struct {
	src  Backend
	opts FactoryOptions
	log  *slog.Logger

	mu      sync.Mutex
	entries map[factoryKey]*factoryEntry
	ctx     context.Context // set by Start
	runs    sync.WaitGroup
	errs    []error
	unique  uint64
	claims  map[identity]*claim // with OneInformerPerType: the options of each type
	// declared are the options of each declared type (Declare), given to
	// the requests without options of their own. A typed informer's
	// identity here has no resource (it is in the options).
	declared map[identity]SharedOptions
	closed   bool // Close was called
	// readers are the Readers made on the factory, one per informer and
	// ReaderOptions (a *Reader[T] each), so that NewReader is cheap
	// enough to call in a reconcile.
	readers map[readerKey]any
	// targets are the targets ever asked for or declared (Targets).
	targets map[Target]struct{}
}

// NewFactory returns a factory whose informers list and watch through src.
func NewFactory(src Backend, opts FactoryOptions) *Factory {
	f := &Factory{src: src, opts: opts, log: opts.Logger, entries: map[factoryKey]*factoryEntry{}}
	f.log = defaultlog.Or(f.log)
	return f
}

// Acquire returns the shared informer of Go type T (a type the factory's
// Backend knows, such as *corev1.Pod or a registered custom type) for
// opts, creating it if needed; opts without any option mean the options
// T was declared with ([Factory.Declare]), or none. If the factory runs, a
// new informer starts at once (once its context is done, none starts:
// WaitForSync then reports ErrNotStarted). Problems resolving T (unknown
// type, resource not served) are reported by WaitForSync.
//
// Each informer it returns counts one user; Release it when done (the
// last Release stops it and frees its cache). On a factory with
// FactoryOptions.OneInformerPerType, options that conflict with those T
// was declared or first asked with return an *[OptionsConflictError]
// (wrapping [ErrOptionsConflict]) and no informer. Otherwise it never
// fails.
func Acquire[T Object](f *Factory, opts SharedOptions) (*Informer[T], error) {
	return forForm[T](f, Typed, opts.Resource, opts)
}

// AcquireResource returns the shared informer of gvr as unstructured
// objects; see [Acquire].
func AcquireResource(f *Factory, gvr schema.GroupVersionResource, opts SharedOptions) (*Informer[*unstructured.Unstructured], error) {
	return forForm[*unstructured.Unstructured](f, Unstructured, gvr, opts)
}

// AcquireMetadata returns the shared metadata-only informer of gvr: only
// object metadata is transferred and cached; see [Acquire].
func AcquireMetadata(f *Factory, gvr schema.GroupVersionResource, opts SharedOptions) (*Informer[*metav1.PartialObjectMetadata], error) {
	return forForm[*metav1.PartialObjectMetadata](f, Metadata, gvr, opts)
}

// targetOf returns the Target of an informer of form and gvr for opts.
func targetOf(typ reflect.Type, form Form, gvr schema.GroupVersionResource, ns string) Target {
	return Target{Type: typ, Resource: gvr, Form: form, Namespace: ns}
}

func forForm[T Object](f *Factory, form Form, gvr schema.GroupVersionResource, opts SharedOptions) (*Informer[T], error) {
	return forFormLazy[T](f, form, gvr, opts, false)
}

// forFormLazy is forForm for a lazy Reader's first read (lazy) or anyone
// else.
func forFormLazy[T Object](f *Factory, form Form, gvr schema.GroupVersionResource, opts SharedOptions, lazy bool) (*Informer[T], error) {
	typ := reflect.TypeFor[T]()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, fmt.Errorf("%w: the factory is closed", ErrStopped)
	}
	if form == Typed {
		opts = f.withDeclared(identity{typ, Typed, schema.GroupVersionResource{}}, opts)
		gvr = opts.Resource
	} else {
		opts = f.withDeclared(identity{typ, form, gvr}, opts)
	}
	key := factoryKey{typ: typ, form: form, gvr: gvr, ns: opts.Namespace, labels: opts.LabelSelector,
		fields: opts.FieldSelector, transform: opts.TransformName, keepMF: opts.KeepManagedFields,
		distinct: opts.DisableSharing, decoded: opts.Decoded, plain: opts.DisableCompression}
	target := targetOf(typ, form, gvr, opts.Namespace)
	f.noteLocked(target)
	if f.opts.OneInformerPerType {
		// The claim guarantees that every request of this type has these
		// options, the transform's code included: one key, one informer.
		if err := f.claimLocked(identity{typ, form, gvr}, target, opts); err != nil {
			return nil, err
		}
	} else if opts.Transform != nil && opts.TransformName == "" {
		f.unique++
		key.unique = f.unique
	}
	if e, ok := f.entries[key]; ok {
		e.refs++
		e.lazy = e.lazy && lazy
		inf := e.typed.(*Informer[T])
		inf.AddIndexers(typedIndexers[T](opts.Indexers))
		return inf, nil
	}
	ropts := f.opts.Reflector
	ropts.LabelSelector, ropts.FieldSelector = opts.LabelSelector, opts.FieldSelector
	ropts.Namespace = opts.Namespace
	if form == Unstructured {
		ropts.Resource = gvr
	}
	iopts := Options[T]{
		Name:                  target.String(),
		Reflector:             ropts,
		Indexers:              typedIndexers[T](opts.Indexers),
		KeepManagedFields:     opts.KeepManagedFields,
		DisableSharing:        opts.DisableSharing,
		Decoded:               opts.Decoded,
		DisableCompression:    opts.DisableCompression,
		MutationDetection:     f.opts.MutationDetection,
		MutationReporter:      f.opts.MutationReporter,
		MutationCheckInterval: f.opts.MutationCheckInterval,
		Logger:                f.opts.Logger,
		Clock:                 f.opts.Clock,
		FailFastAfter:         f.opts.FailFastAfter,
	}
	if opts.LabelSelector != "" || opts.FieldSelector != "" {
		iopts.Name += " (labels " + opts.LabelSelector + ", fields " + opts.FieldSelector + ")"
	}
	if tf := opts.Transform; tf != nil {
		iopts.Transform = func(o T) T {
			if t, ok := tf(o).(T); ok {
				return t
			}
			f.log.Error("informer transform returned another type; object kept untransformed", "informer", iopts.Name)
			return o
		}
	}
	inf := newInformer(func(ctx context.Context) (ListerWatcher[T], error) {
		lw, err := f.src.ListerWatcher(ctx, target)
		if err != nil {
			return nil, err
		}
		return narrow[T](lw), nil
	}, iopts)
	e := &factoryEntry{inf: inf, typed: inf, refs: 1, lazy: lazy}
	inf.release = func() { f.release(key, e) }
	f.entries[key] = e
	if f.ctx != nil && f.ctx.Err() == nil {
		// Not once the factory's context is done: nothing would run, and
		// Wait may be waiting already.
		f.startLocked(e)
	}
	return inf, nil
}

func typedIndexers[T Object](in map[string]func(Object) []string) map[string]IndexFunc[T] {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]IndexFunc[T], len(in))
	for name, fn := range in {
		if fn != nil {
			out[name] = func(o T) []string { return fn(o) }
		}
	}
	return out
}

// Start runs every informer created so far, and every one created later,
// until ctx is done or the informer is released. It does not block.
// Calling Start again has no effect.
func (f *Factory) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ctx != nil {
		return
	}
	f.ctx = ctx
	for _, e := range f.entries {
		f.startLocked(e)
	}
}

func (f *Factory) startLocked(e *factoryEntry) {
	if e.started {
		return
	}
	e.started = true
	ctx, cancel := context.WithCancel(f.ctx)
	e.cancel, e.done = cancel, make(chan struct{})
	f.runs.Add(1)
	go func() {
		defer f.runs.Done()
		defer close(e.done)
		if err := e.inf.Run(ctx); err != nil {
			f.log.Error("informer stopped with an error", "informer", e.inf.Name(), "error", err)
			f.mu.Lock()
			f.errs = append(f.errs, err)
			f.mu.Unlock()
		}
	}()
}

func (f *Factory) release(key factoryKey, e *factoryEntry) {
	f.mu.Lock()
	if f.entries[key] != e || e.refs <= 0 {
		f.mu.Unlock()
		return
	}
	e.refs--
	if e.refs > 0 {
		f.mu.Unlock()
		return
	}
	delete(f.entries, key)
	f.mu.Unlock()
	if e.cancel != nil {
		e.cancel()
		<-e.done
	}
	e.inf.clearCache()
}

// SyncStates yields the name of each informer of the factory and whether
// it has synced, in no particular order: what a readiness check waits
// for. Informers that only a lazy [Reader] asked for are left out (they
// start on its first read).
func (f *Factory) SyncStates() iter.Seq2[string, bool] {
	return func(yield func(string, bool) bool) {
		f.mu.Lock()
		infs := make([]shared, 0, len(f.entries))
		for _, e := range f.entries {
			if !e.lazy {
				infs = append(infs, e.inf)
			}
		}
		f.mu.Unlock()
		for _, inf := range infs {
			if !yield(inf.Name(), inf.HasSynced()) {
				return
			}
		}
	}
}

// Close stops every informer of the factory, waits for them to return
// and frees their caches, whoever holds them; later requests for an
// informer fail with [ErrStopped], and so do the reads of every [Reader]
// made on the factory. It is idempotent.
func (f *Factory) Close() {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	f.closed = true
	entries := f.entries
	f.entries = map[factoryKey]*factoryEntry{}
	f.readers = nil
	f.mu.Unlock()
	for _, e := range entries {
		if e.cancel != nil {
			e.cancel()
			<-e.done
		}
		e.inf.clearCache()
	}
}

// isClosed reports whether Close was called.
func (f *Factory) isClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// WaitForSync waits until every informer created so far has synced or ctx
// ends. It returns nil, or the joined *SyncError of each informer that did
// not sync (each naming the informer and the cause).
func (f *Factory) WaitForSync(ctx context.Context) error {
	f.mu.Lock()
	infs := make([]shared, 0, len(f.entries))
	for _, e := range f.entries {
		infs = append(infs, e.inf)
	}
	f.mu.Unlock()
	var errs []error
	for _, inf := range infs {
		if err := inf.WaitForSync(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Wait blocks until every informer started by the factory has stopped
// (after Start's ctx is done, or released) and returns what their Run
// returned: nil, or the mutations of cached objects that were detected.
func (f *Factory) Wait() error {
	f.runs.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	return errors.Join(f.errs...)
}
