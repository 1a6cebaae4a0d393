package informer

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/internal/codec"
)

// Erase turns a typed ListerWatcher into the ListerWatcher[Object] a
// [Backend] returns. The factory narrows it back to T without copying the
// items.
func Erase[T Object](lw ListerWatcher[T]) ListerWatcher[Object] {
	if _, ok := lw.(hintedWatcher); ok {
		return hintedErased[T]{erased[T]{lw}}
	}
	return erased[T]{lw}
}

type erased[T Object] struct{ lw ListerWatcher[T] }

func (e erased[T]) List(ctx context.Context, opts metav1.ListOptions) (ListResult[Object], error) {
	res, err := e.lw.List(ctx, opts)
	if err != nil {
		return ListResult[Object]{}, err
	}
	out := ListResult[Object]{ResourceVersion: res.ResourceVersion, Continue: res.Continue, Items: make([]Object, len(res.Items))}
	for i, o := range res.Items {
		out.Items[i] = o
	}
	return out, nil
}

func (e erased[T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return e.lw.Watch(ctx, opts)
}

// Namespace is the typed ListerWatcher's (see [Namespaced]).
func (e erased[T]) Namespace() string { return namespaceOf(e.lw) }

// hintedErased is an erased ListerWatcher that follows hints.
type hintedErased[T Object] struct{ erased[T] }

// WatchHinted forwards to the typed ListerWatcher.
func (e hintedErased[T]) WatchHinted(ctx context.Context, opts metav1.ListOptions, hints codec.Hints) (watch.Interface, error) {
	return e.lw.(hintedWatcher).WatchHinted(ctx, opts, hints)
}

// narrow returns lw as a ListerWatcher[T], unwrapping an Erase of the same
// T. The result follows watch hints exactly when lw does.
func narrow[T Object](lw ListerWatcher[Object]) ListerWatcher[T] {
	switch e := lw.(type) {
	case erased[T]:
		return e.lw
	case hintedErased[T]:
		return e.lw
	}
	if _, ok := lw.(hintedWatcher); ok {
		return hintedTypedLW[T]{typedLW[T]{inner: lw}}
	}
	return typedLW[T]{inner: lw}
}
