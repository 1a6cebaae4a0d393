package informer

import (
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/labels"
)

// NamespaceIndex is the built-in index of every Store: object → namespace.
const NamespaceIndex = "namespace"

// IndexFunc computes the values under which an object is indexed. It must be
// a pure function of the object and must not keep or mutate it.
type IndexFunc[T Object] func(obj T) []string

// ErrUnknownIndex is wrapped by errors for an index name that was not
// registered.
var ErrUnknownIndex = errors.New("unknown index")

func unknownIndex(name string) error { return fmt.Errorf("%w %q", ErrUnknownIndex, name) }

const shardCount = 64

type entry[T Object] struct {
	obj  T
	gen  uint32 // replace generation that last wrote the entry
	snap *snapshot[T]
}

type shard[T Object] struct {
	mu    sync.RWMutex
	items map[Key]entry[T]
	// index: index name → value → keys in this shard.
	index map[string]map[string]map[Key]struct{}
	_     [40]byte // keep hot shards on separate cache lines
}

// Store is a thread-safe cache of objects by [Key], with named indexes
// (NamespaceIndex is always present). It is the read side of an informer:
// every method is safe for concurrent use, and readers never wait for each
// other. Objects are stored by pointer and shared: whatever a Store returns
// is read-only for the caller (see the mutation detector in
// InformerOptions). Returned slices are fresh and belong to the caller.
//
// Consistency: Get sees each write atomically. List, ByIndex and IndexKeys
// see every relist (Replace) either entirely or not at all; single-object
// writes made concurrently with them may or may not be seen.
//
// Only the owning informer writes to a Store, from one goroutine.
type Store[T Object] struct {
	seed     maphash.Seed
	indexers atomic.Pointer[map[string]IndexFunc[T]] // copy on write
	// wide is held for reading by cross-shard readers and for writing by
	// replace, so that a relist is observed atomically.
	wide   sync.RWMutex
	gen    uint32 // writer only
	count  atomic.Int64
	detect *detector[T] // nil when mutation detection is off
	shards [shardCount]shard[T]
}

func newStore[T Object](indexers map[string]IndexFunc[T], detect *detector[T]) *Store[T] {
	s := &Store[T]{seed: maphash.MakeSeed(), detect: detect}
	idx := map[string]IndexFunc[T]{
		NamespaceIndex: func(o T) []string { return []string{o.GetNamespace()} },
	}
	for name, fn := range indexers {
		if name != NamespaceIndex && fn != nil {
			idx[name] = fn
		}
	}
	s.indexers.Store(&idx)
	for i := range s.shards {
		s.shards[i].items = make(map[Key]entry[T])
		s.shards[i].index = make(map[string]map[string]map[Key]struct{}, len(idx))
		for name := range idx {
			s.shards[i].index[name] = make(map[string]map[Key]struct{})
		}
	}
	return s
}

// addIndexers adds indexes (existing names are kept as they are) and
// indexes the current content. Safe to call while readers run.
func (s *Store[T]) addIndexers(indexers map[string]IndexFunc[T]) {
	s.wide.Lock()
	defer s.wide.Unlock()
	old := *s.indexers.Load()
	added := map[string]IndexFunc[T]{}
	for name, fn := range indexers {
		if _, ok := old[name]; !ok && fn != nil {
			added[name] = fn
		}
	}
	if len(added) == 0 {
		return
	}
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for name, fn := range added {
			m := make(map[string]map[Key]struct{})
			for k, e := range sh.items {
				for _, v := range fn(e.obj) {
					if m[v] == nil {
						m[v] = map[Key]struct{}{}
					}
					m[v][k] = struct{}{}
				}
			}
			sh.index[name] = m
		}
		sh.mu.Unlock()
	}
	next := make(map[string]IndexFunc[T], len(old)+len(added))
	for n, f := range old {
		next[n] = f
	}
	for n, f := range added {
		next[n] = f
	}
	s.indexers.Store(&next)
}

func (s *Store[T]) hasIndex(name string) bool {
	_, ok := (*s.indexers.Load())[name]
	return ok
}

func (s *Store[T]) shard(k Key) *shard[T] {
	return &s.shards[maphash.Comparable(s.seed, k)%shardCount]
}

// Get returns the object stored under k.
func (s *Store[T]) Get(k Key) (T, bool) {
	sh := s.shard(k)
	sh.mu.RLock()
	e, ok := sh.items[k]
	sh.mu.RUnlock()
	return e.obj, ok
}

// Len returns the number of objects.
func (s *Store[T]) Len() int { return int(s.count.Load()) }

// List returns the objects whose labels match sel, in no particular order.
// A nil selector matches everything.
func (s *Store[T]) List(sel labels.Selector) []T {
	all := sel == nil || sel.Empty()
	s.wide.RLock()
	defer s.wide.RUnlock()
	out := make([]T, 0, s.count.Load())
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.RLock()
		for _, e := range sh.items {
			if all || sel.Matches(labels.Set(e.obj.GetLabels())) {
				out = append(out, e.obj)
			}
		}
		sh.mu.RUnlock()
	}
	return out
}

// Keys returns every key, in no particular order.
func (s *Store[T]) Keys() []Key {
	s.wide.RLock()
	defer s.wide.RUnlock()
	out := make([]Key, 0, s.count.Load())
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.RLock()
		for k := range sh.items {
			out = append(out, k)
		}
		sh.mu.RUnlock()
	}
	return out
}

// ByIndex returns the objects indexed under value by the named index. The
// error wraps [ErrUnknownIndex] if no such index exists.
func (s *Store[T]) ByIndex(index, value string) ([]T, error) {
	return s.byIndex(index, value, nil)
}

func (s *Store[T]) byIndex(index, value string, sel labels.Selector) ([]T, error) {
	if !s.hasIndex(index) {
		return nil, unknownIndex(index)
	}
	all := sel == nil || sel.Empty()
	var out []T
	s.wide.RLock()
	defer s.wide.RUnlock()
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.RLock()
		for k := range sh.index[index][value] {
			if e, ok := sh.items[k]; ok && (all || sel.Matches(labels.Set(e.obj.GetLabels()))) {
				out = append(out, e.obj)
			}
		}
		sh.mu.RUnlock()
	}
	return out, nil
}

// IndexKeys returns the keys indexed under value by the named index, sorted.
// The error wraps [ErrUnknownIndex] if no such index exists.
func (s *Store[T]) IndexKeys(index, value string) ([]Key, error) {
	if !s.hasIndex(index) {
		return nil, unknownIndex(index)
	}
	var out []Key
	s.wide.RLock()
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.RLock()
		for k := range sh.index[index][value] {
			out = append(out, k)
		}
		sh.mu.RUnlock()
	}
	s.wide.RUnlock()
	slices.SortFunc(out, func(a, b Key) int {
		if c := cmpString(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return cmpString(a.Name, b.Name)
	})
	return out, nil
}

// IndexValues returns the values present in the named index.
func (s *Store[T]) IndexValues(index string) ([]string, error) {
	if !s.hasIndex(index) {
		return nil, unknownIndex(index)
	}
	seen := map[string]struct{}{}
	s.wide.RLock()
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.RLock()
		for v := range sh.index[index] {
			seen[v] = struct{}{}
		}
		sh.mu.RUnlock()
	}
	s.wide.RUnlock()
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	slices.Sort(out)
	return out, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// --- write side: one writer goroutine at a time (the informer's). ---

// indexAdd and indexDel run with sh.mu held for writing.
func (s *Store[T]) indexAdd(sh *shard[T], k Key, obj T) {
	for name, fn := range *s.indexers.Load() {
		idx := sh.index[name]
		for _, v := range fn(obj) {
			set := idx[v]
			if set == nil {
				set = make(map[Key]struct{}, 1)
				idx[v] = set
			}
			set[k] = struct{}{}
		}
	}
}

func (s *Store[T]) indexDel(sh *shard[T], k Key, obj T) {
	for name, fn := range *s.indexers.Load() {
		idx := sh.index[name]
		for _, v := range fn(obj) {
			if set := idx[v]; set != nil {
				delete(set, k)
				if len(set) == 0 {
					delete(idx, v)
				}
			}
		}
	}
}

// put stores obj and returns the previous object under its key.
func (s *Store[T]) put(obj T) (old T, existed bool) {
	k := KeyOf(obj)
	sh := s.shard(k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return s.putLocked(sh, k, obj)
}

func (s *Store[T]) putLocked(sh *shard[T], k Key, obj T) (old T, existed bool) {
	e, existed := sh.items[k]
	if existed {
		s.detect.check(k, e)
		if any(e.obj) == any(obj) {
			e.gen = s.gen
			sh.items[k] = e
			return e.obj, true
		}
		s.indexDel(sh, k, e.obj)
	} else {
		s.count.Add(1)
	}
	sh.items[k] = entry[T]{obj: obj, gen: s.gen, snap: s.detect.snapshot(obj)}
	s.indexAdd(sh, k, obj)
	return e.obj, existed
}

// remove deletes the object under k and returns it.
func (s *Store[T]) remove(k Key) (old T, existed bool) {
	sh := s.shard(k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e, existed := sh.items[k]
	if !existed {
		return old, false
	}
	s.detect.check(k, e)
	delete(sh.items, k)
	s.indexDel(sh, k, e.obj)
	s.count.Add(-1)
	return e.obj, true
}

// replace makes items the complete content, in place and key by key (no
// second map is built), and returns the deltas: one Replaced per item and
// one Deleted with FinalStateUnknown per key that is gone. Cross-shard
// readers see the replace atomically.
func (s *Store[T]) replace(items []T, initial bool) []Delta[T] {
	s.wide.Lock()
	defer s.wide.Unlock()
	s.gen++
	deltas := make([]Delta[T], 0, len(items))
	for _, o := range items {
		k := KeyOf(o)
		sh := s.shard(k)
		sh.mu.Lock()
		old, existed := s.putLocked(sh, k, o)
		sh.mu.Unlock()
		deltas = append(deltas, Delta[T]{Type: Replaced, Object: o, Old: old, HasOld: existed, Initial: initial})
	}
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for k, e := range sh.items {
			if e.gen == s.gen {
				continue
			}
			s.detect.check(k, e)
			delete(sh.items, k)
			s.indexDel(sh, k, e.obj)
			s.count.Add(-1)
			deltas = append(deltas, Delta[T]{Type: Deleted, Object: e.obj, FinalStateUnknown: true})
		}
		sh.mu.Unlock()
	}
	return deltas
}

// clear drops every object (used when an informer is released).
func (s *Store[T]) clear() {
	s.wide.Lock()
	defer s.wide.Unlock()
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		clear(sh.items)
		for _, idx := range sh.index {
			clear(idx)
		}
		sh.mu.Unlock()
	}
	s.count.Store(0)
}

// checkAll compares every stored object with its snapshot.
func (s *Store[T]) checkAll() {
	if s.detect == nil {
		return
	}
	s.wide.RLock()
	defer s.wide.RUnlock()
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.RLock()
		for k, e := range sh.items {
			s.detect.check(k, e)
		}
		sh.mu.RUnlock()
	}
}
