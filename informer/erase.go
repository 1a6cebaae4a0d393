package informer

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// Erase turns a typed ListerWatcher into the ListerWatcher[Object] a
// [Backend] returns. The factory narrows it back to T without copying the
// items.
func Erase[T Object](lw ListerWatcher[T]) ListerWatcher[Object] { return erased[T]{lw} }

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

// WatchHinted forwards to the typed ListerWatcher when it is a
// HintedWatcher.
func (e erased[T]) WatchHinted(ctx context.Context, opts metav1.ListOptions, hints WatchHints[Object]) (watch.Interface, error) {
	hw, ok := e.lw.(HintedWatcher[T])
	if !ok {
		return e.lw.Watch(ctx, opts)
	}
	out := WatchHints[T]{DropManagedFields: hints.DropManagedFields, Share: hints.Share}
	if hints.Known != nil {
		out.Known = func(namespace, name, resourceVersion string) (T, bool) {
			if o, ok := hints.Known(namespace, name, resourceVersion); ok {
				if t, ok := o.(T); ok {
					return t, true
				}
			}
			var zero T
			return zero, false
		}
	}
	return hw.WatchHinted(ctx, opts, out)
}

// narrow returns lw as a ListerWatcher[T], unwrapping an Erase of the same T.
func narrow[T Object](lw ListerWatcher[Object]) ListerWatcher[T] {
	if e, ok := lw.(erased[T]); ok {
		return e.lw
	}
	return typedLW[T]{inner: lw}
}
