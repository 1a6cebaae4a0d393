package informer

import (
	"iter"

	"k8s.io/apimachinery/pkg/labels"
)

// Lister reads an informer's cache with the types of T, without waiting
// for it to sync (a [Reader] waits). The zero Lister is not usable; get one
// from [Informer.Lister]. In a compact cache (the default for built-in
// kinds) each read decodes objects of the caller's own; in a decoded cache
// objects are shared with the cache and read-only.
// Returned slices belong to the caller. A Lister is a small value: copy it
// freely; it is safe for concurrent use.
//
// A Lister from Informer.Lister covers the whole cache; one from
// [Lister.Namespace] covers one namespace in List, All, Get, Len and
// Keys. GetKey, ByIndex, IndexKeys and IndexValues always cover the whole
// cache: index values are global, so an index whose values can repeat
// across namespaces should put the namespace into its values.
type Lister[T Object] struct {
	store  *cacheStore[T]
	ns     string
	scoped bool
}

// Namespace returns a lister limited to namespace ns.
func (l Lister[T]) Namespace(ns string) Lister[T] {
	return Lister[T]{store: l.store, ns: ns, scoped: true}
}

// List returns the objects in the lister's scope whose labels match sel
// (nil: all).
func (l Lister[T]) List(sel labels.Selector) []T {
	if !l.scoped {
		return l.store.List(sel)
	}
	out, _ := l.store.byIndex(NamespaceIndex, l.ns, sel) // the index always exists
	return out
}

// All yields the objects in the lister's scope whose labels match sel
// (nil: all) without allocating a slice.
func (l Lister[T]) All(sel labels.Selector) iter.Seq[T] {
	if !l.scoped {
		return l.store.All(sel)
	}
	return l.store.inNamespace(l.ns, sel)
}

// Get returns the object named name: in the lister's namespace, or a
// cluster-scoped one from a lister of the whole cache.
func (l Lister[T]) Get(name string) (T, bool) {
	return l.store.Get(Key{Namespace: l.ns, Name: name})
}

// GetKey returns the object under k.
func (l Lister[T]) GetKey(k Key) (T, bool) { return l.store.Get(k) }

// Len returns the number of objects in the lister's scope.
func (l Lister[T]) Len() int {
	if !l.scoped {
		return l.store.Len()
	}
	ks, _ := l.store.IndexKeys(NamespaceIndex, l.ns)
	return len(ks)
}

// Keys returns the keys of the objects in the lister's scope, in no
// particular order.
func (l Lister[T]) Keys() []Key {
	if !l.scoped {
		return l.store.Keys()
	}
	ks, _ := l.store.IndexKeys(NamespaceIndex, l.ns)
	return ks
}

// ByIndex returns the objects the named index maps to value. The error
// wraps [ErrUnknownIndex] if no such index exists.
func (l Lister[T]) ByIndex(index, value string) ([]T, error) { return l.store.ByIndex(index, value) }

// IndexKeys returns the keys of the objects the named index maps to value.
// The error wraps [ErrUnknownIndex] if no such index exists.
func (l Lister[T]) IndexKeys(index, value string) ([]Key, error) {
	return l.store.IndexKeys(index, value)
}

// IndexValues returns every value the named index holds. The error wraps
// [ErrUnknownIndex] if no such index exists.
func (l Lister[T]) IndexValues(index string) ([]string, error) { return l.store.IndexValues(index) }
