package controller

import (
	"context"
	"fmt"
	"reflect"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/internal/builtin"
)

// Source is where a Controller's Requests come from: [For], [Owns],
// [Watches] and [ForMetadata] are values (their zero options watch every
// object of the type and pass every event), [Channel] a function. The
// informer behind a source is the shared informer of its type in the
// Controller's cache — with the options the type was declared with
// (manager.Options.Declarations), so every source and reader of a type shares
// one watch and one cache. A source value may be given to several
// Controllers; a Channel belongs to one.
type Source interface {
	// String names the source in logs and errors.
	String() string
	// newSource returns the source's state for one Controller.
	newSource() source
}

// source is a Source bound (or to be bound) to one Controller.
type source interface {
	String() string
	bind(b *binder) error
	// clone returns an unbound copy for another cluster, or nil for a
	// source that is not per cluster (Channel).
	clone() source
	start(q enqueuer) error
	stop()
	waitForSync(ctx context.Context) error
	hasSynced() bool
	informerName() string
	sourceKind() sourceKind
	goType() reflect.Type
}

// sourceOptions are the options of every kind of source.
type sourceOptions struct {
	predicates         []Predicate
	ownerKind          schema.GroupKind
	clusterScopedOwner bool
}

// For is the primary source of a Controller: each event of an object of
// type T enqueues a Request for that object. A Controller has at most one
// For source; Owns sources map to its kind. The zero value passes every
// event.
type For[T informer.Object] struct {
	// Predicates filter events: an event enqueues only if every predicate
	// passes it.
	Predicates []Predicate
}

func (s For[T]) String() string { return "For[" + reflect.TypeFor[T]().String() + "]" }

func (s For[T]) newSource() source {
	return &kindSource[T]{kind: kindFor, opts: sourceOptions{predicates: s.Predicates}}
}

// ForMetadata is the primary source of a Controller from the
// metadata-only informer of a resource: objects arrive, and are cached,
// as *metav1.PartialObjectMetadata (name, namespace, labels, annotations,
// owner references, generation...), without spec or status. Use it
// instead of For when the reconciler needs only metadata, as a labeler
// does: the API server sends less, the client decodes and caches less.
// Read the objects with informer.NewMetadataReader on the same host.
//
// Owns sources of a Controller whose For source is ForMetadata find the
// owner kind from Resource when Options.Kinds is a client.ResourceKindResolver
// (a Manager's client is); otherwise they must set Owns.OwnerKind.
type ForMetadata struct {
	// Resource is the watched resource; required.
	Resource schema.GroupVersionResource
	// Predicates filter events, as For's.
	Predicates []Predicate
}

func (s ForMetadata) String() string { return "ForMetadata[" + s.Resource.String() + "]" }

func (s ForMetadata) newSource() source {
	return &kindSource[*metav1.PartialObjectMetadata]{kind: kindFor, opts: sourceOptions{predicates: s.Predicates}, gvr: s.Resource, metadata: true}
}

// Owns is a source of objects of type T owned by objects of the For kind:
// an event of a T whose controller ownerReference (controller: true)
// points to an object of that kind enqueues a Request for the owner (old
// and new owner on an update that changes it). Objects without such a
// reference enqueue nothing. The zero value finds the owner kind from the
// For source.
type Owns[T informer.Object] struct {
	// Predicates filter events, as For's.
	Predicates []Predicate
	// OwnerKind is the group and kind of the owner to look for in
	// ownerReferences. Zero means the kind of the Controller's For source,
	// found through Options.Kinds (the client's registry, built-in table
	// and scheme) or else Options.Scheme; set it for a ForMetadata source
	// whose resource Options.Kinds cannot map, or a For type neither
	// knows.
	OwnerKind schema.GroupKind
	// ClusterScopedOwner says the owner is cluster-scoped, so the Request
	// has no namespace even though the owned object has one.
	ClusterScopedOwner bool
}

func (s Owns[T]) String() string { return "Owns[" + reflect.TypeFor[T]().String() + "]" }

func (s Owns[T]) newSource() source {
	return &kindSource[T]{kind: kindOwns, opts: sourceOptions{predicates: s.Predicates, ownerKind: s.OwnerKind, clusterScopedOwner: s.ClusterScopedOwner}}
}

// Watches is a source of objects of type T whose events enqueue the
// Requests that Map returns (for an update, those of the old and of the
// new object). Map runs on the source's handler goroutine: it must be
// quick, may read caches, must not modify obj, and should not call the API
// server. Its ctx ends when the source stops (Start returning, or
// Disengage of its cluster), and stopping waits for a Map call in progress
// to return: a Map that blocks must return once ctx ends. A nil Map
// enqueues nothing.
type Watches[T informer.Object] struct {
	Map func(ctx context.Context, obj T) []Request
	// Predicates filter events, as For's.
	Predicates []Predicate
}

func (s Watches[T]) String() string { return "Watches[" + reflect.TypeFor[T]().String() + "]" }

func (s Watches[T]) newSource() source {
	return &kindSource[T]{kind: kindWatches, opts: sourceOptions{predicates: s.Predicates}, mapFn: s.Map}
}

type sourceKind int

const (
	kindFor sourceKind = iota + 1
	kindOwns
	kindWatches
	kindChannel
)

// enqueuer is how a source adds Requests: live changes with add, the
// objects of an informer's initial list and of resyncs with addLow (add
// itself unless Options.PriorityQueue).
type enqueuer struct {
	add, addLow func(Request)
	// resync is Options.SyncPeriod: the For source's handler gets every
	// cached object again at that period.
	resync time.Duration
}

// forCluster returns q stamping the Requests without a cluster with name.
func (q enqueuer) forCluster(name string) enqueuer {
	stamp := func(add func(Request)) func(Request) {
		return func(r Request) {
			if r.Cluster == "" {
				r.Cluster = name
			}
			add(r)
		}
	}
	return enqueuer{add: stamp(q.add), addLow: stamp(q.addLow), resync: q.resync}
}

// binder is what a Source needs from its Controller when it is created.
type binder struct {
	factory *informer.Factory
	scheme  *runtime.Scheme
	// forKind is the group/kind of the For source, resolved lazily.
	forKind func() (schema.GroupKind, error)
	// kinds, when set, checks that a source's type can be mapped.
	kinds client.KindResolver
	// cold defers taking the informer from factory to the source's start
	// (StandbyCold).
	cold bool
}

// kindSource is every Source: an informer of T plus a mapping to Requests.
type kindSource[T informer.Object] struct {
	kind  sourceKind
	opts  sourceOptions
	mapFn func(ctx context.Context, obj T) []Request
	// metadata: the informer is the metadata-only one of gvr (T is
	// *metav1.PartialObjectMetadata).
	metadata bool
	gvr      schema.GroupVersionResource

	bound bool // claimed by a Controller (as its source, or a template)
	// infp is the source's informer: taken in bind, or with a cold binder
	// in start from coldFrom. Read through informer(): the sync state is
	// read concurrently with start.
	infp     atomic.Pointer[informer.Informer[T]]
	coldFrom *binder
	owner    schema.GroupKind
	// reg is the handler's registration, set by start; read concurrently
	// by hasSynced.
	reg    atomic.Pointer[informer.Registration]
	q      enqueuer
	ctx    context.Context // passed to mapFn
	cancel context.CancelFunc
}

func (s *kindSource[T]) String() string {
	var verb string
	switch s.kind {
	case kindFor:
		verb = "For"
	case kindOwns:
		verb = "Owns"
	default:
		verb = "Watches"
	}
	if s.metadata {
		return verb + "Metadata[" + s.gvr.String() + "]"
	}
	return verb + "[" + reflect.TypeFor[T]().String() + "]"
}

func (s *kindSource[T]) clone() source {
	return &kindSource[T]{kind: s.kind, opts: s.opts, mapFn: s.mapFn, metadata: s.metadata, gvr: s.gvr}
}

func (s *kindSource[T]) bind(b *binder) error {
	if err := s.check(b); err != nil {
		return err
	}
	if b.factory == nil {
		return nil // a template: checked, never run
	}
	if b.cold {
		s.coldFrom = b
		return nil
	}
	return s.acquire(b)
}

// informer returns the source's informer; nil while a cold source has not
// started.
func (s *kindSource[T]) informer() *informer.Informer[T] { return s.infp.Load() }

// check claims the source and finds what it needs without the server: the
// owner kind of Owns, and (with b.kinds) that its type can be mapped.
func (s *kindSource[T]) check(b *binder) error {
	if s.bound {
		return fmt.Errorf("%w: %s", ErrSourceReused, s)
	}
	if s.kind == kindOwns {
		s.owner = s.opts.ownerKind
		if s.owner.Kind == "" {
			gk, err := b.forKind()
			if err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
			s.owner = gk
		}
	}
	if b.kinds != nil && !s.metadata {
		if _, err := b.kinds.KindOf(zeroOf(reflect.TypeFor[T]())); err != nil {
			return fmt.Errorf("%s: %w: %w", s, ErrUnknownKind, err)
		}
	}
	s.bound = true
	return nil
}

// acquire takes the source's informer from b's factory.
func (s *kindSource[T]) acquire(b *binder) error {
	if s.metadata {
		minf, err := informer.AcquireMetadata(b.factory, s.gvr, informer.SharedOptions{})
		if err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
		inf, ok := any(minf).(*informer.Informer[T])
		if !ok { // unreachable: ForMetadata makes T *metav1.PartialObjectMetadata
			minf.Release()
			return fmt.Errorf("%w: %s", ErrUnknownKind, s)
		}
		s.infp.Store(inf)
		return nil
	}
	inf, err := informer.Acquire[T](b.factory, informer.SharedOptions{})
	if err != nil {
		return fmt.Errorf("%s: %w", s, err)
	}
	s.infp.Store(inf)
	return nil
}

func (s *kindSource[T]) start(q enqueuer) error {
	if b := s.coldFrom; b != nil && s.informer() == nil {
		if err := s.acquire(b); err != nil {
			return err
		}
	}
	s.q = q
	s.ctx, s.cancel = context.WithCancel(context.Background())
	var hopts informer.HandlerOptions
	if s.kind == kindFor {
		hopts.ResyncPeriod = q.resync
	}
	reg, err := s.informer().AddEventHandler(s, hopts)
	if err != nil {
		s.cancel()
		return fmt.Errorf("%s: %w", s, err)
	}
	s.reg.Store(reg)
	return nil
}

func (s *kindSource[T]) stop() {
	if reg := s.reg.Load(); reg != nil {
		reg.Remove()
	}
	if s.cancel != nil {
		s.cancel()
	}
	if inf := s.informer(); inf != nil {
		inf.Release()
	}
}

// waitForSync waits until the source's handler has been given every
// object of the informer's initial state (its informer has synced, and
// the handler's buffer has delivered the initial adds): only then are the
// source's initial Requests all in the queue. Without a registration (a
// start that failed) it waits for the informer alone.
func (s *kindSource[T]) waitForSync(ctx context.Context) error {
	if reg := s.reg.Load(); reg != nil {
		return reg.WaitForSync(ctx)
	}
	inf := s.informer()
	if inf == nil {
		return &informer.SyncError{Informer: s.String(), Cause: informer.ErrNotStarted, Ctx: ctx.Err()}
	}
	return inf.WaitForSync(ctx)
}

// hasSynced reports whether the informer has synced and, once the handler
// is registered, whether the handler has been given the initial state.
func (s *kindSource[T]) hasSynced() bool {
	if reg := s.reg.Load(); reg != nil {
		return reg.HasSynced()
	}
	inf := s.informer()
	return inf != nil && inf.HasSynced()
}

// informerName is "" while a cold source has no informer: a replica that
// does not lead reports nothing of it.
func (s *kindSource[T]) informerName() string {
	if inf := s.informer(); inf != nil {
		return inf.Name()
	}
	return ""
}

func (s *kindSource[T]) sourceKind() sourceKind { return s.kind }

func (s *kindSource[T]) goType() reflect.Type { return reflect.TypeFor[T]() }

// metadataResource returns the resource of a ForMetadata source.
func (s *kindSource[T]) metadataResource() (schema.GroupVersionResource, bool) {
	return s.gvr, s.metadata
}

// pass reports whether every predicate passes e.
func (s *kindSource[T]) pass(e Event) bool {
	for _, p := range s.opts.predicates {
		if !p(e) {
			return false
		}
	}
	return true
}

// OnAdd implements informer.Handler. The objects of the initial list are
// enqueued at low priority (with Options.PriorityQueue).
func (s *kindSource[T]) OnAdd(obj T, initial bool) {
	if s.pass(Event{Type: Create, Object: obj}) {
		s.emit(obj, s.pick(initial))
	}
}

// OnUpdate implements informer.Handler. A resync or a relisted object
// that did not change (same resourceVersion) is enqueued at low priority
// (with Options.PriorityQueue).
func (s *kindSource[T]) OnUpdate(old, obj T) {
	if !s.pass(Event{Type: Update, Object: obj, Old: old}) {
		return
	}
	add := s.pick(old.GetResourceVersion() == obj.GetResourceVersion())
	if s.kind != kindFor {
		s.emit(old, add)
	}
	s.emit(obj, add) // the queue deduplicates a request enqueued twice
}

// OnDelete implements informer.Handler.
func (s *kindSource[T]) OnDelete(obj T, finalStateUnknown bool) {
	if s.pass(Event{Type: Delete, Object: obj, FinalStateUnknown: finalStateUnknown}) {
		s.emit(obj, s.q.add)
	}
}

// pick returns the enqueue function of a live change, or of background
// work when low.
func (s *kindSource[T]) pick(low bool) func(Request) {
	if low {
		return s.q.addLow
	}
	return s.q.add
}

func (s *kindSource[T]) emit(obj T, add func(Request)) {
	switch s.kind {
	case kindFor:
		add(Request{Key: informer.KeyOf(obj)})
	case kindOwns:
		if req, ok := ownerRequest(obj, s.owner, s.opts.clusterScopedOwner); ok {
			add(req)
		}
	case kindWatches:
		if s.mapFn == nil {
			return
		}
		for _, req := range s.mapFn(s.ctx, obj) {
			add(req)
		}
	}
}

// ownerRequest returns the Request of obj's controller owner when it is of
// kind owner.
func ownerRequest(obj metav1.Object, owner schema.GroupKind, clusterScoped bool) (Request, bool) {
	ref := metav1.GetControllerOfNoCopy(obj)
	if ref == nil || ref.Kind != owner.Kind || ref.Name == "" {
		return Request{}, false
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil || gv.Group != owner.Group {
		return Request{}, false
	}
	req := Request{Key: informer.Key{Name: ref.Name}}
	if !clusterScoped {
		req.Namespace = obj.GetNamespace()
	}
	return req, true
}

// zeroOf returns a new zero object of pointer type t, or nil when t is not
// a pointer to an object struct.
func zeroOf(t reflect.Type) runtime.Object {
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	obj, _ := reflect.New(t.Elem()).Interface().(runtime.Object)
	return obj
}

// kindOf returns the group/kind of Go type t, from kinds (when set) or
// else from sch (nil: the built-in kinds of k8s.io/api).
func kindOf(kinds client.KindResolver, sch *runtime.Scheme, t reflect.Type) (schema.GroupKind, error) {
	obj := zeroOf(t)
	if obj == nil {
		return schema.GroupKind{}, fmt.Errorf("%w: %s is not a pointer to an object", ErrUnknownKind, t)
	}
	if kinds != nil {
		if gvk, err := kinds.KindOf(obj); err == nil {
			return gvk.GroupKind(), nil
		}
	}
	var gvks []schema.GroupVersionKind
	var err error
	if sch != nil {
		gvks, _, err = sch.ObjectKinds(obj)
	} else {
		gvks = builtin.KindsOf(t)
	}
	if err != nil || len(gvks) == 0 {
		return schema.GroupKind{}, fmt.Errorf("%w: the kind of %s is neither in Options.Kinds nor in Options.Scheme; set Owns.OwnerKind", ErrUnknownKind, t)
	}
	return gvks[0].GroupKind(), nil
}
