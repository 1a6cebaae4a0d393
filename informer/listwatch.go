package informer

import (
	"context"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/internal/codec"
)

// Object is what an informer caches: an API object with metadata, such as
// *corev1.Pod, *unstructured.Unstructured or *metav1.PartialObjectMetadata.
// T is always a pointer type in practice.
type Object interface {
	runtime.Object
	metav1.Object
}

// ListResult is one page of a LIST.
type ListResult[T Object] struct {
	// Items are the objects of the page. The reflector takes ownership of
	// them: the ListerWatcher must not touch them after returning. They may
	// point into one array (&list.Items[i]): on a relist the reflector moves
	// the items it keeps out of it, so the page does not outlive the call.
	Items []T
	// ResourceVersion is the list's resourceVersion (metadata.resourceVersion
	// of the list object).
	ResourceVersion string
	// Continue is the token for the next page, "" on the last page.
	Continue string
}

// ListerWatcher is how a reflector talks to the API server, for one resource
// in one namespace (or all namespaces). The client packages implement it with
// a thin adapter: a typed client.Resource[T], the dynamic client with
// T = *unstructured.Unstructured, the metadata client with
// T = *metav1.PartialObjectMetadata.
//
// Contract:
//   - List performs one LIST call with exactly the given options (the
//     reflector sets Limit, Continue, ResourceVersion, ResourceVersionMatch,
//     LabelSelector and FieldSelector) and returns one page.
//   - Watch opens one WATCH with exactly the given options. Events carry
//     objects of type T, except Bookmark events (any object whose metadata
//     carries the resourceVersion and annotations, typically a T) and Error
//     events, whose object is a *metav1.Status. The result channel closes
//     when the stream ends; if the watch.Interface also has an
//     Err() error method, a non-nil value after close says why it ended.
//     If it has a Compressed() bool method that reports true for a
//     streaming watch (SendInitialEvents), the reflector closes that watch
//     after the initial events and reopens a plain one from their
//     resourceVersion, as kube-apiserver would otherwise compress each
//     later event on its own (see rest.WatchStream.Compressed).
//   - The client packages' ListerWatchers also take the reflector's watch
//     hints (what the informer holds and discards, and its table of shared
//     values) through a method whose argument type is internal; any other
//     ListerWatcher is simply watched with Watch.
//   - Errors that come from the server are *apierrors.StatusError (or wrap
//     one), so that apierrors.IsResourceExpired, IsGone, IsForbidden,
//     IsNotFound, IsInvalid and IsBadRequest work on them. Transport errors
//     may be anything.
//   - Both must honour ctx: when it is done, List returns and the watch
//     stops and closes its channel.
//   - Both are called from one goroutine at a time per reflector, but a
//     ListerWatcher shared by several reflectors must be safe for concurrent
//     use.
type ListerWatcher[T Object] interface {
	List(ctx context.Context, opts metav1.ListOptions) (ListResult[T], error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// Namespaced is implemented by a ListerWatcher that lists and watches one
// namespace, as the client packages' ListerWatchers do (client.Typed[T](c).
// Namespace(ns).ListerWatcher()). The reflector refuses an object of any
// other namespace (see [RefusedError]) whether or not
// ReflectorOptions.Namespace says so too, so an informer built with [New]
// over such a ListerWatcher is as strict as one a Factory builds. Namespace
// returns "" for all namespaces (or a cluster-scoped resource). A
// ListerWatcher that wraps another should implement it by asking the inner
// one (see namespaceOf).
type Namespaced interface {
	Namespace() string
}

// namespaceOf returns the namespace lw lists and watches, if it says
// (see [Namespaced]), or "".
func namespaceOf[T Object](lw ListerWatcher[T]) string {
	if n, ok := lw.(Namespaced); ok {
		return n.Namespace()
	}
	return ""
}

// hintedWatcher is a ListerWatcher that can follow the reflector's watch
// hints (see codec.Hints): the client packages' ListerWatchers are. The
// hints' type is internal, so no other ListerWatcher can be one; the
// reflector then calls Watch.
type hintedWatcher interface {
	WatchHinted(ctx context.Context, opts metav1.ListOptions, hints codec.Hints) (watch.Interface, error)
}

// Funcs adapts two functions to a [ListerWatcher].
type Funcs[T Object] struct {
	ListFunc  func(ctx context.Context, opts metav1.ListOptions) (ListResult[T], error)
	WatchFunc func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// List calls ListFunc.
func (f Funcs[T]) List(ctx context.Context, opts metav1.ListOptions) (ListResult[T], error) {
	return f.ListFunc(ctx, opts)
}

// Watch calls WatchFunc.
func (f Funcs[T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return f.WatchFunc(ctx, opts)
}

// Form says which representation of a resource a [Target] asks for.
type Form int

const (
	// Typed objects: a Go struct type registered in a scheme (*corev1.Pod,
	// a CRD's Go type).
	Typed Form = iota
	// Unstructured objects (*unstructured.Unstructured), for any resource.
	Unstructured
	// Metadata objects (*metav1.PartialObjectMetadata): only metadata is
	// transferred and cached.
	Metadata
)

func (f Form) String() string {
	switch f {
	case Typed:
		return "typed"
	case Unstructured:
		return "unstructured"
	case Metadata:
		return "metadata"
	}
	return fmt.Sprintf("Form(%d)", int(f))
}

// Target names what a [Backend] must list and watch.
type Target struct {
	// Type is the Go type of the objects, e.g. reflect.TypeFor[*corev1.Pod]().
	// For Unstructured and Metadata it is *unstructured.Unstructured or
	// *metav1.PartialObjectMetadata.
	Type reflect.Type
	// Resource is the group/version/resource. It is always set for
	// Unstructured and Metadata; for Typed it is set only when the caller
	// gave one, otherwise the Backend resolves it from Type (scheme + REST
	// mapping).
	Resource schema.GroupVersionResource
	// Form is the representation to request.
	Form Form
	// Namespace limits the target to one namespace; "" means all namespaces
	// (or a cluster-scoped resource).
	Namespace string
}

func (t Target) String() string {
	what := t.Resource.String()
	if t.Resource.Empty() && t.Type != nil {
		what = t.Type.String()
	}
	if t.Form != Typed {
		what += " (" + t.Form.String() + ")"
	}
	if t.Namespace != "" {
		what += " in namespace " + t.Namespace
	}
	return what
}

// Backend produces ListerWatchers for a [Factory]. The client packages
// implement it (typically from a rest config, a scheme and a REST mapper).
// Target.Type is only known at run time, so an implementation works on
// runtime.Objects: decode lists with the scheme and convert them with
// fromList, decode watch events into new objects of Target.Type (or
// wrap a typed ListerWatcher[T] with [Erase] when T is known statically).
//
// ListerWatcher is called once per informer the factory creates, from the
// goroutine that runs that informer, so it may block briefly (discovery). The
// returned ListerWatcher's items and watch objects must have the Go type
// Target.Type; the factory checks and reports a mismatch as a sync error. An
// error (unknown type, resource not served) is reported through the
// informer's WaitForSync and retried with backoff.
type Backend interface {
	ListerWatcher(ctx context.Context, t Target) (ListerWatcher[Object], error)
}

// BackendFunc adapts a function to a [Backend].
type BackendFunc func(ctx context.Context, t Target) (ListerWatcher[Object], error)

// ListerWatcher calls f.
func (f BackendFunc) ListerWatcher(ctx context.Context, t Target) (ListerWatcher[Object], error) {
	return f(ctx, t)
}

// TypeError is returned when a ListerWatcher hands over an object of the
// wrong Go type. It wraps [ErrUnexpectedType].
type TypeError struct {
	Want reflect.Type
	Got  reflect.Type
}

func (e *TypeError) Error() string {
	return fmt.Sprintf("unexpected object type %v, want %v", e.Got, e.Want)
}

// Unwrap returns [ErrUnexpectedType].
func (e *TypeError) Unwrap() error { return ErrUnexpectedType }

// typedLW narrows a ListerWatcher[Object] to a ListerWatcher[T]. Watch events
// are passed through; the reflector checks their type.
type typedLW[T Object] struct{ inner ListerWatcher[Object] }

func (l typedLW[T]) List(ctx context.Context, opts metav1.ListOptions) (ListResult[T], error) {
	res, err := l.inner.List(ctx, opts)
	if err != nil {
		return ListResult[T]{}, err
	}
	out := ListResult[T]{ResourceVersion: res.ResourceVersion, Continue: res.Continue, Items: make([]T, len(res.Items))}
	for i, o := range res.Items {
		t, ok := o.(T)
		if !ok {
			return ListResult[T]{}, &TypeError{Want: reflect.TypeFor[T](), Got: reflect.TypeOf(o)}
		}
		out.Items[i] = t
	}
	return out, nil
}

func (l typedLW[T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return l.inner.Watch(ctx, opts)
}

// Namespace is the inner ListerWatcher's (see [Namespaced]).
func (l typedLW[T]) Namespace() string { return namespaceOf(l.inner) }

// hintedTypedLW is a typedLW whose inner ListerWatcher follows hints.
type hintedTypedLW[T Object] struct{ typedLW[T] }

// WatchHinted forwards to the inner ListerWatcher.
func (l hintedTypedLW[T]) WatchHinted(ctx context.Context, opts metav1.ListOptions, hints codec.Hints) (watch.Interface, error) {
	return l.inner.(hintedWatcher).WatchHinted(ctx, opts, hints)
}
