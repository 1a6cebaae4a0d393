package client

import (
	"context"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/internal/codec"
)

// ListerWatcher returns r as the informer's ListerWatcher, for informer.New
// and friends. It follows the informer contract: one LIST or WATCH per
// call with exactly the given options, server errors as
// *apierrors.StatusError, and the watch's Err method saying why it ended.
// A listed item of another Go type than T (a server answering with another
// kind) fails the List with an *informer.TypeError. It is
// informer.Namespaced: an informer over it refuses objects from outside
// r's namespace.
func (r *Resource[T]) ListerWatcher() informer.ListerWatcher[T] {
	return listerWatcher[T]{k: r.k}
}

type listerWatcher[T informer.Object] struct{ k core }

func (l listerWatcher[T]) List(ctx context.Context, opts metav1.ListOptions) (informer.ListResult[T], error) {
	items, lm, err := listAs[T](ctx, l.k, opts)
	if err != nil {
		return informer.ListResult[T]{}, err
	}
	return informer.ListResult[T]{Items: items, ResourceVersion: lm.ResourceVersion, Continue: lm.Continue}, nil
}

func (l listerWatcher[T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return l.WatchHinted(ctx, opts, codec.Hints{})
}

// Namespace is the namespace listed and watched ("" for all): the
// informer refuses objects of any other (see informer.Namespaced).
func (l listerWatcher[T]) Namespace() string { return l.k.ns }

// WatchHinted is Watch following the informer's hints: protobuf events for
// objects the informer already holds at the same resourceVersion are not
// decoded, managedFields the informer discards are cut before decoding, and
// the objects share their values through the informer's table as they are
// decoded. The informer finds this method by its signature.
func (l listerWatcher[T]) WatchHinted(ctx context.Context, opts metav1.ListOptions, hints codec.Hints) (watch.Interface, error) {
	w, err := l.k.watchHinted(ctx, &opts, hints)
	if err != nil {
		return nil, err // not a typed nil *rest.WatchStream in the interface
	}
	return w, nil
}

// listAs lists one page and hands its items over as T. An item of another
// type fails the whole page with an *informer.TypeError: a ListerWatcher
// must never leave objects out silently, or the informer would take them
// for deleted.
func listAs[T any](ctx context.Context, k core, opts metav1.ListOptions) ([]T, metav1.ListMeta, error) {
	var items []T
	var bad reflect.Type
	lm, err := k.list(ctx, &opts, func(o runtime.Object) {
		if t, ok := o.(T); ok {
			items = append(items, t)
		} else if bad == nil {
			bad = reflect.TypeOf(o)
		}
	})
	if err != nil {
		return nil, metav1.ListMeta{}, err
	}
	if bad != nil {
		return nil, metav1.ListMeta{}, &informer.TypeError{Want: k.ti.typ, Got: bad}
	}
	return items, lm, nil
}

// ListerWatcher makes c an informer.Backend, so an informer.Factory built on
// it can serve any type c can map: typed targets through c's Registry,
// built-in table and Mapper; unstructured and metadata targets by their
// resource. It does not block.
func (c *Client) ListerWatcher(ctx context.Context, t informer.Target) (informer.ListerWatcher[informer.Object], error) {
	if t.Type == nil {
		return nil, fmt.Errorf("client: target %s has no Go type", t)
	}
	ti := c.typeOf(t.Type)
	k := core{c: c, ti: ti, ns: t.Namespace}
	switch t.Form {
	case informer.Typed:
		if ti.form == formUnstructured || ti.form == formMetadata {
			return nil, fmt.Errorf("client: typed target %s has type %v", t, t.Type)
		}
		if !t.Resource.Empty() {
			k.explicit = explicitFor(ti, t)
		} else if _, err := c.resolve(ctx, ti); err != nil {
			return nil, err
		}
	case informer.Unstructured, informer.Metadata:
		want := unstructuredType
		if t.Form == informer.Metadata {
			want = metadataType
		}
		if t.Type != want || t.Resource.Empty() {
			return nil, fmt.Errorf("client: %s target %s needs type %v and a resource", t.Form, t, want)
		}
		k.explicit = explicitFor(ti, t)
	default:
		return nil, fmt.Errorf("client: unknown target form %v", t.Form)
	}
	return objectLW{k: k}, nil
}

var _ informer.Backend = (*Client)(nil)

// explicitFor builds the mapping of a target that names its resource. List
// and watch need no scope beyond the namespace the target gives.
func explicitFor(ti *typeInfo, t informer.Target) *Mapping {
	m := Mapping{Resource: t.Resource, Namespaced: t.Namespace != ""}
	if ti.resolved && ti.mapping.Resource == t.Resource {
		m.Kind = ti.mapping.Kind
	}
	return &m
}

// objectLW is the untyped ListerWatcher the Client, as an informer.Backend,
// returns for a Target.
type objectLW struct{ k core }

// WatchHinted is Watch following the informer's hints (see
// listerWatcher.WatchHinted).
func (l objectLW) WatchHinted(ctx context.Context, opts metav1.ListOptions, hints codec.Hints) (watch.Interface, error) {
	w, err := l.k.watchHinted(ctx, &opts, hints)
	if err != nil {
		return nil, err
	}
	return w, nil
}

func (l objectLW) List(ctx context.Context, opts metav1.ListOptions) (informer.ListResult[informer.Object], error) {
	items, lm, err := listAs[informer.Object](ctx, l.k, opts)
	if err != nil {
		return informer.ListResult[informer.Object]{}, err
	}
	return informer.ListResult[informer.Object]{Items: items, ResourceVersion: lm.ResourceVersion, Continue: lm.Continue}, nil
}

func (l objectLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return l.WatchHinted(ctx, opts, codec.Hints{})
}

// Namespace is the target's namespace (see informer.Namespaced).
func (l objectLW) Namespace() string { return l.k.ns }
