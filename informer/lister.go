package informer

import (
	"iter"

	"k8s.io/apimachinery/pkg/labels"
)

// Lister reads an informer's cache with the types of T. The zero Lister is
// not usable; get one from [Informer.Lister]. Objects are shared with the
// cache: read-only. Returned slices belong to the caller.
type Lister[T Object] struct{ store *Store[T] }

// List returns every cached object whose labels match sel (nil: all).
func (l Lister[T]) List(sel labels.Selector) []T { return l.store.List(sel) }

// All yields the cached objects whose labels match sel (nil: all) without
// allocating a slice.
func (l Lister[T]) All(sel labels.Selector) iter.Seq[T] { return l.store.All(sel) }

// Get returns a cluster-scoped object by name.
func (l Lister[T]) Get(name string) (T, bool) { return l.store.Get(Key{Name: name}) }

// GetKey returns the object under k.
func (l Lister[T]) GetKey(k Key) (T, bool) { return l.store.Get(k) }

// ByIndex returns the objects the named index maps to value.
func (l Lister[T]) ByIndex(index, value string) ([]T, error) { return l.store.ByIndex(index, value) }

// Namespace returns a lister limited to namespace ns.
func (l Lister[T]) Namespace(ns string) NamespaceLister[T] {
	return NamespaceLister[T]{store: l.store, ns: ns}
}

// NamespaceLister reads the objects of one namespace.
type NamespaceLister[T Object] struct {
	store *Store[T]
	ns    string
}

// Get returns the object named name in the namespace.
func (l NamespaceLister[T]) Get(name string) (T, bool) {
	return l.store.Get(Key{Namespace: l.ns, Name: name})
}

// List returns the namespace's objects whose labels match sel (nil: all).
func (l NamespaceLister[T]) List(sel labels.Selector) []T {
	out, _ := l.store.byIndex(NamespaceIndex, l.ns, sel) // the index always exists
	return out
}

// All yields the namespace's objects whose labels match sel (nil: all)
// without allocating a slice.
func (l NamespaceLister[T]) All(sel labels.Selector) iter.Seq[T] {
	return l.store.inNamespace(l.ns, sel)
}
