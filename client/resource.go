package client

import (
	"context"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/rest"
)

// List is one page of a LIST: the list's metadata (resourceVersion,
// continue token, remaining item count) and its items, owned by the caller.
type List[T informer.Object] struct {
	metav1.ListMeta
	Items []T
}

// Resource is the typed client of one resource, in one namespace or all. It
// is a small immutable value: Namespace returns a copy, and a Resource is
// safe for concurrent use. Objects passed in are never modified; objects
// returned are new and belong to the caller.
//
// Every method returns *UnknownTypeError when T cannot be mapped to a
// resource, *ScopeError when the namespace does not fit the resource's
// scope, and *apierrors.StatusError (test with apierrors.IsNotFound,
// IsConflict, …) for what the server refuses.
type Resource[T informer.Object] struct {
	k core
}

// Typed returns the client of T's resource across all namespaces (or of a
// cluster-scoped resource). T is mapped to its resource from, in order, the
// Client's Registry, the table of built-in kinds, and the Client's Mapper
// (discovery) for types its scheme knows. Typed never fails: a T that cannot
// be mapped makes every call return *UnknownTypeError.
func Typed[T informer.Object](c *Client) *Resource[T] {
	return &Resource[T]{k: core{c: c, ti: c.typeOf(reflect.TypeFor[T]())}}
}

// TypedMapping returns the client of the resource m for Go type T, bypassing
// lookup. This is how *unstructured.Unstructured and
// *metav1.PartialObjectMetadata clients name their resource.
func TypedMapping[T informer.Object](c *Client, m Mapping) *Resource[T] {
	return &Resource[T]{k: core{c: c, ti: c.typeOf(reflect.TypeFor[T]()), explicit: &m}}
}

// Namespace returns a copy of r scoped to namespace ns; "" means all
// namespaces for List and Watch, and the object's own namespace for Create
// and Update.
func (r *Resource[T]) Namespace(ns string) *Resource[T] {
	out := *r
	out.k.ns = ns
	return &out
}

// NamespaceName returns the namespace r is scoped to: "" for all
// namespaces, or for a cluster-scoped resource.
func (r *Resource[T]) NamespaceName() string { return r.k.ns }

// Mapping returns the resource, kind and scope r works on.
func (r *Resource[T]) Mapping(ctx context.Context) (Mapping, error) {
	return r.k.mapping(ctx)
}

// DiscardResults returns a copy of r whose writes do not decode the
// server's answer: Create, Update, UpdateStatus and Patch return the zero
// T (nil) and their error only; so does Apply. For writers that drop the stored object
// anyway (an event sink, a status write whose result a reconciler does
// not read), it saves decoding a whole object per write. Reads, deletes and
// the subresource methods are unchanged.
func (r *Resource[T]) DiscardResults() *Resource[T] {
	out := *r
	out.k.discard = true
	return &out
}

func cast[T informer.Object](o runtime.Object, err error) (T, error) {
	var zero T
	if err != nil || o == nil {
		return zero, err
	}
	t, ok := o.(T)
	if !ok {
		return zero, &rest.DecodeError{Err: fmt.Errorf("got %T, want %v", o, reflect.TypeFor[T]())}
	}
	return t, nil
}

// Get returns the object called name.
func (r *Resource[T]) Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error) {
	return cast[T](r.k.get(ctx, name, &opts))
}

// List returns one page of objects matching opts: label and field
// selectors, Limit and Continue for paging, ResourceVersion and
// ResourceVersionMatch for the consistency of the read. An expired
// Continue token is an apierrors.IsResourceExpired error. Use All to walk
// every page.
func (r *Resource[T]) List(ctx context.Context, opts metav1.ListOptions) (*List[T], error) {
	out := &List[T]{}
	lm, err := r.k.list(ctx, &opts, func(o runtime.Object) {
		if t, ok := o.(T); ok {
			out.Items = append(out.Items, t)
		}
	})
	if err != nil {
		return nil, err
	}
	out.ListMeta = lm
	return out, nil
}

// Watch starts a watch. Events carry T, except ERROR events (a
// *metav1.Status, after which the stream ends) and bookmarks. The caller
// must Stop the stream or cancel ctx.
func (r *Resource[T]) Watch(ctx context.Context, opts metav1.ListOptions) (*rest.WatchStream, error) {
	return r.k.watch(ctx, &opts)
}

// Create creates obj in r's namespace, or in obj's when r has none, and
// returns the object the server stored. Like every write, it names the
// Client's Options.FieldManager as the field manager unless opts names one.
func (r *Resource[T]) Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error) {
	r.k.c.defaultManager(&opts.FieldManager)
	return cast[T](r.k.write(ctx, "POST", obj, &opts))
}

// Update replaces obj (optimistic concurrency through its
// resourceVersion: a stale one is an apierrors.IsConflict error; see
// RetryOnConflict). Status changes are ignored by the server; use
// UpdateStatus.
func (r *Resource[T]) Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error) {
	r.k.c.defaultManager(&opts.FieldManager)
	return cast[T](r.k.write(ctx, "PUT", obj, &opts))
}

// UpdateStatus replaces the status of obj through the status subresource.
func (r *Resource[T]) UpdateStatus(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error) {
	r.k.c.defaultManager(&opts.FieldManager)
	return cast[T](r.k.write(ctx, "PUT", obj, &opts, "status"))
}

// Delete deletes the object called name. opts carries preconditions
// (UID, ResourceVersion), the propagation policy and the grace period.
func (r *Resource[T]) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return r.k.delete(ctx, name, &opts)
}

// DeleteCollection deletes every object of r's namespace that matches
// listOpts.
func (r *Resource[T]) DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error {
	return r.k.deleteCollection(ctx, &opts, &listOpts)
}

// Patch applies a patch of type pt to the object called name (or to its
// subresource), and returns the result. types.JSONPatchType and
// types.MergePatchType work everywhere; types.StrategicMergePatchType only
// for built-in kinds (*PatchTypeError otherwise); for
// types.ApplyPatchType prefer Apply.
func (r *Resource[T]) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error) {
	if pt == types.ApplyPatchType && opts.FieldManager == "" {
		opts.FieldManager = r.k.c.applyManager
	}
	r.k.c.defaultManager(&opts.FieldManager)
	return cast[T](r.k.patch(ctx, name, pt, data, &opts, subresources...))
}
