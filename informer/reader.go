package informer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// defaultReaderSyncTimeout bounds how long a read of a [Reader] waits for
// its cache to sync when ReaderOptions.SyncTimeout is zero.
const defaultReaderSyncTimeout = 2 * time.Minute

// ReaderOptions configure a [Reader]. The zero value reads every object of
// the type, in every namespace, from an informer created at once.
type ReaderOptions struct {
	// Lazy delays creating (and so starting) the informer until the first
	// read, which then waits for the initial list. Without Lazy the
	// informer is created by NewReader and starts with the factory.
	Lazy bool
	// SyncTimeout bounds how long a read waits for the cache to sync,
	// within the read's context. Zero means two minutes;
	// negative means only the context bounds it.
	SyncTimeout time.Duration
}

// ListOptions select the objects [Reader.List] returns. The zero value
// selects every cached object.
type ListOptions struct {
	// Namespace limits the list to one namespace; "" means every namespace
	// the informer caches.
	Namespace string
	// Labels selects by label; nil means every object.
	Labels labels.Selector
}

// Reader reads objects of type T from a shared informer's cache, waiting
// for the cache to sync on its first reads. It is what a reconciler holds
// to read the cluster: Get by key, List by namespace and label selector,
// ByIndex by a named index.
//
// Reads never go to the API server: they see the cache, which may lag
// behind a write just made (read a live object through a client instead,
// e.g. client.Typed[T](c).Namespace(ns).Get). Objects are shared with the
// cache and with every other reader and handler: read-only; DeepCopy
// before changing one. Returned slices belong to the caller.
//
// Create one with [NewReader], [NewResourceReader] or [NewMetadataReader]
// on a Host. All methods are safe for concurrent use.
type Reader[T Object] struct {
	opts    ReaderOptions
	f       *Factory
	key     readerKey
	acquire func() (*Informer[T], error)

	mu       sync.Mutex
	inf      *Informer[T] // nil until acquired (Lazy)
	released bool
}

// A Host holds a program's shared informers: a manager.Manager, a
// fleet.Cluster, or a [Factory] itself. Readers are made on a Host.
type Host interface {
	Factory() *Factory
}

// Factory returns f, so that a Factory is a [Host].
func (f *Factory) Factory() *Factory { return f }

// NewReader returns a Reader of Go type T (a type the host's Backend
// knows) from the host's shared informer of T — the one a controller's
// sources of T use —, with the options T was declared with
// ([Factory.Declare]; manager.Options.Declarations), or none. Unless
// opts.Lazy, it creates (or shares) the informer now; a factory already
// started starts it at once. A host keeps one Reader per type and
// options: calling NewReader again returns the same Reader, so it is
// cheap enough to call in a reconcile (as a multi-cluster reconciler does
// with the cluster of its Request).
//
//	deployments, err := informer.NewReader[*appsv1.Deployment](mgr, informer.ReaderOptions{})
//	...
//	d, err := deployments.Get(ctx, req.Key)
func NewReader[T Object](h Host, opts ReaderOptions) (*Reader[T], error) {
	return newReader(h, Typed, schema.GroupVersionResource{}, opts, func(f *Factory, lazy bool) (*Informer[T], error) {
		return forFormLazy[T](f, Typed, schema.GroupVersionResource{}, SharedOptions{}, lazy)
	})
}

// NewResourceReader returns a Reader of resource gvr as unstructured
// objects; see [NewReader].
func NewResourceReader(h Host, gvr schema.GroupVersionResource, opts ReaderOptions) (*Reader[*unstructured.Unstructured], error) {
	return newReader(h, Unstructured, gvr, opts, func(f *Factory, lazy bool) (*Informer[*unstructured.Unstructured], error) {
		return forFormLazy[*unstructured.Unstructured](f, Unstructured, gvr, SharedOptions{}, lazy)
	})
}

// NewMetadataReader returns a Reader of resource gvr from a metadata-only
// informer (the one a controller's ForMetadata source of gvr uses); see
// [NewReader].
func NewMetadataReader(h Host, gvr schema.GroupVersionResource, opts ReaderOptions) (*Reader[*metav1.PartialObjectMetadata], error) {
	return newReader(h, Metadata, gvr, opts, func(f *Factory, lazy bool) (*Informer[*metav1.PartialObjectMetadata], error) {
		return forFormLazy[*metav1.PartialObjectMetadata](f, Metadata, gvr, SharedOptions{}, lazy)
	})
}

func newReader[T Object](h Host, form Form, gvr schema.GroupVersionResource, opts ReaderOptions, acquire func(f *Factory, lazy bool) (*Informer[T], error)) (*Reader[T], error) {
	var f *Factory
	if h != nil {
		f = h.Factory()
	}
	if f == nil {
		return nil, errors.New("informer: NewReader: no Factory")
	}
	if opts.SyncTimeout == 0 {
		opts.SyncTimeout = defaultReaderSyncTimeout
	}
	key := readerKey{identity{reflect.TypeFor[T](), form, gvr}, opts}
	f.mu.Lock()
	r, ok := f.readers[key].(*Reader[T])
	f.mu.Unlock()
	if ok {
		return r, nil
	}
	r = &Reader[T]{opts: opts, f: f, key: key, acquire: func() (*Informer[T], error) { return acquire(f, opts.Lazy) }}
	if opts.Lazy {
		if f.opts.OneInformerPerType {
			if err := f.claimDeclared(reflect.TypeFor[T](), form, gvr); err != nil {
				return nil, err
			}
		}
	} else {
		inf, err := r.acquire()
		if err != nil {
			return nil, err
		}
		r.inf = inf
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if prev, ok := f.readers[key].(*Reader[T]); ok {
		// Made meanwhile by another caller: keep one.
		if r.inf != nil {
			r.inf.Release()
		}
		return prev, nil
	}
	if f.readers == nil {
		f.readers = map[readerKey]any{}
	}
	f.readers[key] = r
	return r, nil
}

// readerKey identifies the Readers a Factory keeps: one per informer and
// ReaderOptions.
type readerKey struct {
	id   identity
	opts ReaderOptions
}

// informer returns the informer, acquiring it on the first call of a lazy
// Reader.
func (r *Reader[T]) informer() (*Informer[T], error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inf == nil {
		inf, err := r.acquire()
		if err != nil {
			return nil, err
		}
		r.inf = inf
	}
	return r.inf, nil
}

// synced returns the informer once it has synced.
func (r *Reader[T]) synced(ctx context.Context) (*Informer[T], error) {
	if r.f.isClosed() {
		return nil, fmt.Errorf("%w: the factory is closed", ErrStopped)
	}
	inf, err := r.informer()
	if err != nil {
		return nil, err
	}
	if inf.HasSynced() {
		return inf, nil
	}
	if r.opts.SyncTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.opts.SyncTimeout)
		defer cancel()
	}
	if err := inf.WaitForSync(ctx); err != nil {
		var se *SyncError
		if errors.As(err, &se) {
			return nil, &readError{Sync: se}
		}
		return nil, err
	}
	return inf, nil
}

// WaitForSync waits until the cache has synced (creating a lazy Reader's
// informer). It returns nil; an error wrapping [ErrNotSynced] from which
// errors.As takes the informer's *[SyncError], which carries the cause of the last failed attempt (403
// Forbidden, 404 NotFound for a resource not served, ...) and comes early
// when that cause is permanent; or, for a lazy Reader, the factory's
// *[OptionsConflictError]. The wait is bounded by ctx and by
// ReaderOptions.SyncTimeout.
func (r *Reader[T]) WaitForSync(ctx context.Context) error {
	_, err := r.synced(ctx)
	return err
}

// HasSynced reports whether the cache has synced; false for a lazy Reader
// not read yet. It never waits.
func (r *Reader[T]) HasSynced() bool {
	r.mu.Lock()
	inf := r.inf
	r.mu.Unlock()
	return inf != nil && inf.HasSynced()
}

// Name names the Reader's informer, or its type while a lazy Reader has
// none yet; "" once released.
func (r *Reader[T]) Name() string {
	r.mu.Lock()
	inf, released := r.inf, r.released
	r.mu.Unlock()
	if released {
		return ""
	}
	if inf == nil {
		return reflect.TypeFor[T]().String()
	}
	return inf.Name()
}

// Get returns the cached object under key (Key{Name: name} for a
// cluster-scoped one). Before the first sync it waits for it (see
// WaitForSync, whose errors it returns). For an object not in the cache,
// errors.Is(err, ErrNotFound) and apierrors.IsNotFound(err) both hold;
// they hold for no other error of a Reader (a resource not served is an
// error wrapping ErrNotSynced and the informer's *SyncError).
func (r *Reader[T]) Get(ctx context.Context, key Key) (T, error) {
	var zero T
	inf, err := r.synced(ctx)
	if err != nil {
		return zero, err
	}
	obj, ok := inf.store.Get(key)
	if !ok {
		return zero, &notFoundError{Informer: inf.name, Key: key}
	}
	return obj, nil
}

// List returns the cached objects that opts selects, in no particular
// order, waiting for the first sync as Get does.
func (r *Reader[T]) List(ctx context.Context, opts ListOptions) ([]T, error) {
	inf, err := r.synced(ctx)
	if err != nil {
		return nil, err
	}
	if opts.Namespace != "" {
		return inf.Lister().Namespace(opts.Namespace).List(opts.Labels), nil
	}
	return inf.store.List(opts.Labels), nil
}

// ByIndex returns the cached objects that the named index maps to value,
// waiting for the first sync as Get does. The index must have been
// registered (SharedOptions.Indexers, by this Reader or by any other user
// of the informer); an unknown one gives an error wrapping
// [ErrUnknownIndex]. Index values are global to the cache, not per
// namespace: an index whose values can repeat across namespaces must put
// the namespace into them (objects.OwnerIndex does).
func (r *Reader[T]) ByIndex(ctx context.Context, index, value string) ([]T, error) {
	inf, err := r.synced(ctx)
	if err != nil {
		return nil, err
	}
	return inf.store.ByIndex(index, value)
}

// Release gives the informer back to the factory (see Informer.Release);
// reads afterwards return [ErrStopped], and the next NewReader of the type
// makes a new Reader. It is idempotent. Readers living as long as their
// factory need not call it.
func (r *Reader[T]) Release() {
	r.mu.Lock()
	inf := r.inf
	r.inf, r.released = nil, true
	r.acquire = func() (*Informer[T], error) { return nil, ErrStopped }
	r.mu.Unlock()
	r.f.mu.Lock()
	if r.f.readers[r.key] == any(r) {
		delete(r.f.readers, r.key)
	}
	r.f.mu.Unlock()
	if inf != nil {
		inf.Release()
	}
}

// readError is what a [Reader]'s read returns when its cache has not
// synced in time. errors.As finds the informer's *[SyncError] in it (with
// the cause of the last failed attempt), and errors.Is(err, ErrNotSynced)
// holds; but apimachinery's predicates do not see the cause through it:
// apierrors.IsNotFound is true for an object missing from a synced cache
// only, never for a resource the server does not serve (a CRD not
// installed), which a reconciler must not mistake for a deleted object.
// Test the cause with errors.As(err, &syncErr) and then syncErr.Cause.
type readError struct {
	Sync *SyncError
}

func (e *readError) Error() string { return "cache read: " + e.Sync.Error() }

// Unwrap returns [ErrNotSynced].
func (e *readError) Unwrap() error { return ErrNotSynced }

// As gives the *SyncError to errors.As.
func (e *readError) As(target any) bool {
	if p, ok := target.(**SyncError); ok {
		*p = e.Sync
		return true
	}
	return false
}

// notFoundError is what a [Reader] returns for a key its cache does not
// hold. It implements apimachinery's APIStatus (a 404 NotFound Status), so
// apierrors.IsNotFound recognises it as it does the server's answer.
type notFoundError struct {
	Informer string // the informer read
	Key      Key
}

func (e *notFoundError) Error() string {
	return fmt.Sprintf("%s not found in the cache of informer %s", e.Key, e.Informer)
}

// Unwrap returns [ErrNotFound].
func (e *notFoundError) Unwrap() error { return ErrNotFound }

// Status returns the 404 NotFound Status the API server would have given.
func (e *notFoundError) Status() metav1.Status {
	return metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotFound,
		Reason:  metav1.StatusReasonNotFound,
		Message: e.Error(),
		Details: &metav1.StatusDetails{Name: e.Key.Name},
	}
}
