package informer

import (
	"fmt"
	"hash/maphash"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubego/kubego/internal/codec/wire"
)

// NamespaceIndex is the built-in index of every Store: object → namespace.
const NamespaceIndex = "namespace"

// IndexFunc computes the values under which an object is indexed. It must be
// a pure function of the object and must not keep or mutate it. It runs on
// the informer's writer goroutine, like Options.Transform: keep it cheap.
type IndexFunc[T Object] func(obj T) []string

func unknownIndex(name string) error { return fmt.Errorf("%w %q", ErrUnknownIndex, name) }

// The store is a two-level copy-on-write radix of fan×fan shards. Readers
// load the current root with one atomic read and never lock or wait; the
// single writer copies only the root, one middle node and the shards it
// touches, then publishes a new root. A relist is one such write, so readers
// see it entirely or not at all.
const (
	fanBits = 5
	fan     = 1 << fanBits
)

type entry[T Object] struct {
	obj T      // the object, unless pk holds it encoded
	pk  packed // the encoded object, in a compact store; zero otherwise
	// vals holds a packed object's values of each declared index (other
	// than NamespaceIndex), computed when it was stored.
	vals map[string][]string
	snap *snapshot[T]
}

type shard[T Object] struct {
	items slots[T]
	// index: index name → value → keys, for the indexers other than
	// NamespaceIndex, which is answered from byNS; nil until used.
	index map[string]map[string]map[Key]struct{}
	txn   uint64 // transaction that may still mutate it
	// Read caches, built on first use once the shard is published (a
	// published shard never changes): all objects, and objects by namespace.
	all  atomic.Pointer[[]T]
	byNS atomic.Pointer[map[string][]T]
}

func (sh *shard[T]) objects() []T {
	if p := sh.all.Load(); p != nil {
		return *p
	}
	out := make([]T, 0, len(sh.items))
	for i := range sh.items {
		out = append(out, sh.items[i].e.obj)
	}
	sh.all.Store(&out)
	return out
}

func (sh *shard[T]) namespace(ns string) []T {
	if p := sh.byNS.Load(); p != nil {
		return (*p)[ns]
	}
	m := map[string][]T{}
	for i := range sh.items {
		x := &sh.items[i]
		ns := x.key().Namespace
		m[ns] = append(m[ns], x.e.obj)
	}
	sh.byNS.Store(&m)
	return m[ns]
}

type mid[T Object] struct {
	shards [fan]*shard[T]
	txn    uint64
}

type root[T Object] struct {
	mids     [fan]*mid[T]
	count    int
	indexers map[string]IndexFunc[T] // immutable
}

// cacheStore is a thread-safe cache of objects by [Key], with named indexes
// (NamespaceIndex is always present). It is the read side of an informer.
// Every method is safe for concurrent use; readers never block and never
// delay the writer. Each read works on one consistent point-in-time view.
// Objects are stored by pointer and shared: whatever a cacheStore returns is
// read-only for the caller (see the mutation detector in Options) —
// except in a compact store (Options.Compact), which decodes an object
// of the caller's own at every read. Returned slices are fresh and belong
// to the caller.
//
// Only the owning informer writes to a cacheStore.
type cacheStore[T Object] struct {
	seed   maphash.Seed
	cur    atomic.Pointer[root[T]]
	detect *detector[T] // nil when mutation detection is off
	pack   *packer[T]   // nil unless the store is compact (see Options.Compact)

	// pending maps the stand-ins returned by prepack to the encoded
	// objects they stand for, until they are stored.
	pmu     sync.Mutex
	pending map[any]prepared

	wmu sync.Mutex // serialises writers
	txn uint64     // id of the open (or last) write transaction
	w   *root[T]   // root under construction, nil outside a transaction
}

func newStore[T Object](indexers map[string]IndexFunc[T], detect *detector[T], pack *packer[T]) *cacheStore[T] {
	s := &cacheStore[T]{seed: maphash.MakeSeed(), detect: detect, pack: pack}
	if pack != nil {
		s.detect = nil // every read decodes an object of its own: nothing to detect
	}
	idx := map[string]IndexFunc[T]{
		NamespaceIndex: nil, // answered from the shards' namespace caches
	}
	for name, fn := range indexers {
		if name != NamespaceIndex && fn != nil {
			idx[name] = fn
		}
	}
	s.cur.Store(&root[T]{indexers: idx})
	return s
}

// pos returns the hash of k and the position of its shard.
func (s *cacheStore[T]) pos(k Key) (h uint64, mi, si int) {
	h = maphash.Comparable(s.seed, k)
	return h, int(h & (fan - 1)), int((h >> fanBits) & (fan - 1))
}

// each calls fn for every non-empty shard of r.
func (r *root[T]) each(fn func(*shard[T])) {
	for _, m := range r.mids {
		if m == nil {
			continue
		}
		for _, sh := range m.shards {
			if sh != nil {
				fn(sh)
			}
		}
	}
}

// Get returns the object stored under k.
func (s *cacheStore[T]) Get(k Key) (T, bool) {
	h, mi, si := s.pos(k)
	var zero T
	m := s.cur.Load().mids[mi]
	if m == nil {
		return zero, false
	}
	sh := m.shards[si]
	if sh == nil {
		return zero, false
	}
	e, ok := sh.items.get(h, k)
	if !ok {
		return zero, false
	}
	return s.value(e), true
}

// value returns e's object: a fresh decoding in a compact store.
func (s *cacheStore[T]) value(e entry[T]) T {
	if e.pk.ok() {
		return s.pack.unpack(e.pk)
	}
	return e.obj
}

// delta returns a Delta of type t for e, to be decoded by each listener
// when e is packed.
func delta[T Object](t deltaType, e entry[T]) change[T] {
	return change[T]{Type: t, Object: e.obj, objP: e.pk}
}

// withOld sets d's old object to e's.
func (d change[T]) withOld(e entry[T]) change[T] {
	d.Old, d.oldP, d.HasOld = e.obj, e.pk, true
	return d
}

// labelsOf returns e's labels, read in place when e is packed.
func labelsOf[T Object](e *entry[T]) labels.Labels {
	if e.pk.ok() {
		return e.pk.labels()
	}
	return labels.Set(e.obj.GetLabels())
}

// scan yields, for a compact store, the objects of view r whose labels
// match sel (all when sel is nil or empty), limited to namespace ns when
// byNS is set; each is decoded for the caller.
func (s *cacheStore[T]) scan(r *root[T], ns string, byNS bool, sel labels.Selector, yield func(T) bool) {
	all := sel == nil || sel.Empty()
	for _, m := range r.mids {
		if m == nil {
			continue
		}
		for _, sh := range m.shards {
			if sh == nil {
				continue
			}
			for i := range sh.items {
				x := &sh.items[i]
				if byNS && x.key().Namespace != ns {
					continue
				}
				if !all && !sel.Matches(labelsOf(&x.e)) {
					continue
				}
				if !yield(s.value(x.e)) {
					return
				}
			}
		}
	}
}

// Len returns the number of objects.
func (s *cacheStore[T]) Len() int { return s.cur.Load().count }

// List returns the objects whose labels match sel, in no particular order.
// A nil selector matches everything.
func (s *cacheStore[T]) List(sel labels.Selector) []T {
	all := sel == nil || sel.Empty()
	r := s.cur.Load()
	n := r.count
	if !all {
		n = 0
	}
	out := make([]T, 0, n)
	if s.pack != nil {
		s.scan(r, "", false, sel, func(o T) bool { out = append(out, o); return true })
		return out
	}
	r.each(func(sh *shard[T]) {
		if all {
			out = append(out, sh.objects()...)
			return
		}
		for _, o := range sh.objects() {
			if sel.Matches(labels.Set(o.GetLabels())) {
				out = append(out, o)
			}
		}
	})
	return out
}

// All yields the objects whose labels match sel (nil: all), in no
// particular order, from one consistent view, without allocating. The
// iteration holds no lock; it may be stopped early.
func (s *cacheStore[T]) All(sel labels.Selector) iter.Seq[T] {
	all := sel == nil || sel.Empty()
	return func(yield func(T) bool) {
		r := s.cur.Load()
		if s.pack != nil {
			s.scan(r, "", false, sel, yield)
			return
		}
		for _, m := range r.mids {
			if m == nil {
				continue
			}
			for _, sh := range m.shards {
				if sh == nil {
					continue
				}
				for _, o := range sh.objects() {
					if (all || sel.Matches(labels.Set(o.GetLabels()))) && !yield(o) {
						return
					}
				}
			}
		}
	}
}

// inNamespace yields the objects of namespace ns matching sel.
func (s *cacheStore[T]) inNamespace(ns string, sel labels.Selector) iter.Seq[T] {
	all := sel == nil || sel.Empty()
	return func(yield func(T) bool) {
		r := s.cur.Load()
		if s.pack != nil {
			s.scan(r, ns, true, sel, yield)
			return
		}
		for _, m := range r.mids {
			if m == nil {
				continue
			}
			for _, sh := range m.shards {
				if sh == nil {
					continue
				}
				for _, o := range sh.namespace(ns) {
					if (all || sel.Matches(labels.Set(o.GetLabels()))) && !yield(o) {
						return
					}
				}
			}
		}
	}
}

// Keys returns every key, in no particular order.
func (s *cacheStore[T]) Keys() []Key {
	r := s.cur.Load()
	out := make([]Key, 0, r.count)
	r.each(func(sh *shard[T]) {
		for i := range sh.items {
			out = append(out, sh.items[i].key())
		}
	})
	return out
}

// ByIndex returns the objects indexed under value by the named index. The
// error wraps [ErrUnknownIndex] if no such index exists.
func (s *cacheStore[T]) ByIndex(index, value string) ([]T, error) {
	return s.byIndex(index, value, nil)
}

func (s *cacheStore[T]) byIndex(index, value string, sel labels.Selector) ([]T, error) {
	r := s.cur.Load()
	if _, ok := r.indexers[index]; !ok {
		return nil, unknownIndex(index)
	}
	all := sel == nil || sel.Empty()
	var out []T
	if s.pack != nil && index == NamespaceIndex {
		s.scan(r, value, true, sel, func(o T) bool { out = append(out, o); return true })
		return out, nil
	}
	if index == NamespaceIndex {
		if all {
			n := 0
			r.each(func(sh *shard[T]) { n += len(sh.namespace(value)) })
			out = make([]T, 0, n)
			r.each(func(sh *shard[T]) { out = append(out, sh.namespace(value)...) })
			return out, nil
		}
		r.each(func(sh *shard[T]) {
			for _, o := range sh.namespace(value) {
				if all || sel.Matches(labels.Set(o.GetLabels())) {
					out = append(out, o)
				}
			}
		})
		return out, nil
	}
	r.each(func(sh *shard[T]) {
		for k := range sh.index[index][value] {
			if e, ok := sh.items.get(maphash.Comparable(s.seed, k), k); ok && (all || sel.Matches(labelsOf(&e))) {
				out = append(out, s.value(e))
			}
		}
	})
	return out, nil
}

// IndexKeys returns the keys indexed under value by the named index, sorted.
// The error wraps [ErrUnknownIndex] if no such index exists.
func (s *cacheStore[T]) IndexKeys(index, value string) ([]Key, error) {
	r := s.cur.Load()
	if _, ok := r.indexers[index]; !ok {
		return nil, unknownIndex(index)
	}
	var out []Key
	r.each(func(sh *shard[T]) {
		if index == NamespaceIndex && s.pack != nil {
			for i := range sh.items {
				if k := sh.items[i].key(); k.Namespace == value {
					out = append(out, k)
				}
			}
			return
		}
		if index == NamespaceIndex {
			for _, o := range sh.namespace(value) {
				out = append(out, KeyOf(o))
			}
			return
		}
		for k := range sh.index[index][value] {
			out = append(out, k)
		}
	})
	slices.SortFunc(out, func(a, b Key) int {
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}

// IndexValues returns the values present in the named index, sorted.
func (s *cacheStore[T]) IndexValues(index string) ([]string, error) {
	r := s.cur.Load()
	if _, ok := r.indexers[index]; !ok {
		return nil, unknownIndex(index)
	}
	seen := map[string]struct{}{}
	r.each(func(sh *shard[T]) {
		if index == NamespaceIndex && s.pack != nil {
			for i := range sh.items {
				seen[sh.items[i].key().Namespace] = struct{}{}
			}
			return
		}
		if index == NamespaceIndex {
			sh.namespace("")
			for v := range *sh.byNS.Load() {
				seen[v] = struct{}{}
			}
			return
		}
		for v := range sh.index[index] {
			seen[v] = struct{}{}
		}
	})
	return slices.Sorted(maps.Keys(seen)), nil
}

// --- write side ---

func (s *cacheStore[T]) begin() {
	s.wmu.Lock()
	s.txn++
	r := *s.cur.Load()
	s.w = &r
}

func (s *cacheStore[T]) commit() {
	if s.pack != nil {
		s.tidy()
	}
	s.cur.Store(s.w)
	s.w = nil
	s.wmu.Unlock()
}

// shardAt returns the writable shard at (mi, si), copying the path to it on
// first use in the transaction; nil if absent and !create.
func (s *cacheStore[T]) shardAt(mi, si int, create bool) *shard[T] {
	if s.w.mids[mi] == nil && !create {
		return nil
	}
	m := s.midAt(mi)
	sh := m.shards[si]
	switch {
	case sh == nil && !create:
		return nil
	case sh == nil:
		sh = &shard[T]{txn: s.txn}
		m.shards[si] = sh
	case sh.txn != s.txn:
		sh = sh.clone(s.txn)
		m.shards[si] = sh
	}
	return sh
}

// midAt returns the writable middle node mi, creating or copying it.
func (s *cacheStore[T]) midAt(mi int) *mid[T] {
	m := s.w.mids[mi]
	switch {
	case m == nil:
		m = &mid[T]{txn: s.txn}
		s.w.mids[mi] = m
	case m.txn != s.txn:
		c := *m
		c.txn = s.txn
		m = &c
		s.w.mids[mi] = m
	}
	return m
}

func (sh *shard[T]) clone(txn uint64) *shard[T] {
	// One slot of room: most copies are made to add or replace one object.
	c := &shard[T]{items: append(make(slots[T], 0, len(sh.items)+1), sh.items...), txn: txn}
	if sh.index == nil {
		return c
	}
	c.index = make(map[string]map[string]map[Key]struct{}, len(sh.index))
	for name, vals := range sh.index {
		cv := make(map[string]map[Key]struct{}, len(vals))
		for v, set := range vals {
			cv[v] = maps.Clone(set)
		}
		c.index[name] = cv
	}
	return c
}

// indexValues returns e's values of the named index: those computed when
// it was packed, or fn's.
func indexValues[T Object](e entry[T], name string, fn IndexFunc[T]) []string {
	if e.pk.ok() {
		return e.vals[name]
	}
	return fn(e.obj)
}

func (s *cacheStore[T]) indexAdd(sh *shard[T], k Key, e entry[T]) {
	indexAddTo(sh, k, e, s.w.indexers)
}

// indexAddTo adds k's entry e to sh's indexes named in idx.
func indexAddTo[T Object](sh *shard[T], k Key, e entry[T], idx map[string]IndexFunc[T]) {
	for name, fn := range idx {
		if fn == nil {
			continue
		}
		for _, v := range indexValues(e, name, fn) {
			if sh.index == nil {
				sh.index = map[string]map[string]map[Key]struct{}{}
			}
			idx := sh.index[name]
			if idx == nil {
				idx = map[string]map[Key]struct{}{}
				sh.index[name] = idx
			}
			set := idx[v]
			if set == nil {
				set = make(map[Key]struct{}, 1)
				idx[v] = set
			}
			set[k] = struct{}{}
		}
	}
}

func (s *cacheStore[T]) indexDel(sh *shard[T], k Key, e entry[T]) {
	indexDelFrom(sh, k, e, s.w.indexers)
}

// indexDelFrom removes k's entry e from sh's indexes named in idx.
func indexDelFrom[T Object](sh *shard[T], k Key, e entry[T], idx map[string]IndexFunc[T]) {
	for name, fn := range idx {
		if fn == nil {
			continue
		}
		idx := sh.index[name]
		for _, v := range indexValues(e, name, fn) {
			if set := idx[v]; set != nil {
				delete(set, k)
				if len(set) == 0 {
					delete(idx, v)
				}
			}
		}
	}
}

// same reports whether e already holds obj: the same object, or in a
// compact store the same resourceVersion (one state of one object).
func (s *cacheStore[T]) same(e *entry[T], obj T) bool {
	if !e.pk.ok() || s.pack == nil {
		return any(e.obj) == any(obj)
	}
	s.pmu.Lock()
	pr, pending := s.pending[any(obj)]
	s.pmu.Unlock()
	same := pending && pr.pk == e.pk
	if !same {
		// Another encoding of the same state (the held one moved to
		// another chunk since obj was prepared) is the same too.
		rv := obj.GetResourceVersion()
		_, _, held, ok := wire.Identity(e.pk.raw())
		same = ok && rv != "" && string(held) == rv
	}
	if same && pending {
		s.pmu.Lock()
		delete(s.pending, any(obj))
		s.pmu.Unlock()
	}
	return same
}

// entryOf returns the entry holding obj, packed in a compact store.
func (s *cacheStore[T]) entryOf(obj T) entry[T] {
	if s.pack != nil {
		if pr, ok := s.packedOf(obj, s.w.indexers); ok {
			return entry[T]{pk: s.pack.keep(pr.pk), vals: pr.vals}
		}
		// Not encodable (never seen for a valid object): keep it decoded.
	}
	return entry[T]{obj: obj, snap: s.detect.snapshot(obj)}
}

// prepack encodes obj for a compact store ahead of storing it, and returns
// a stand-in holding only its namespace, name and resourceVersion (what
// Prepare returns for a watch event, and Hints.Known for an event of an
// object held unchanged). A complete state being received does not go
// through stand-ins: see replacement. held, when not nil, is
// the encoding already stored for an unchanged obj. The stand-in is to be
// given to the store's write methods, which take its encoding back; it is
// never handed to a reader. When obj cannot be encoded, obj itself is
// returned.
func (s *cacheStore[T]) prepack(obj T, held prepared) T {
	pr := held
	if !pr.pk.ok() {
		var ok bool
		if pr, ok = s.packedOf(obj, s.cur.Load().indexers); !ok {
			return obj
		}
	}
	return s.prepackHeld(KeyOf(obj), obj.GetResourceVersion(), pr)
}

// prepackHeld is prepack for the unchanged object k at resourceVersion rv
// whose encoding pr is stored; k and rv are copied.
func (s *cacheStore[T]) prepackHeld(k Key, rv string, pr prepared) T {
	stub := s.pack.stub(Key{Namespace: strings.Clone(k.Namespace), Name: strings.Clone(k.Name)}, strings.Clone(rv))
	s.pmu.Lock()
	if s.pending == nil {
		s.pending = map[any]prepared{}
	}
	s.pending[any(stub)] = pr
	s.pmu.Unlock()
	return stub
}

// isPending reports whether obj is a stand-in made by prepack.
func (s *cacheStore[T]) isPending(obj T) bool {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	_, ok := s.pending[any(obj)]
	return ok
}

// packedOf returns obj's encoding: the one prepack made for a stand-in,
// completed with the values of indexes added since, or a new one; nil if
// obj cannot be encoded.
func (s *cacheStore[T]) packedOf(obj T, idx map[string]IndexFunc[T]) (prepared, bool) {
	s.pmu.Lock()
	pr, ok := s.pending[any(obj)]
	if ok {
		delete(s.pending, any(obj))
	}
	s.pmu.Unlock()
	if !ok {
		pr, err := s.pack.pack(obj, idx)
		return pr, err == nil
	}
	var decoded T
	var added map[string][]string
	for name, fn := range idx {
		if _, have := pr.vals[name]; have || fn == nil {
			continue
		}
		if added == nil {
			decoded = s.pack.unpack(pr.pk)
			added = maps.Clone(pr.vals)
			if added == nil {
				added = map[string][]string{}
			}
		}
		added[name] = indexValuesOf(fn, decoded)
	}
	if added != nil {
		pr.vals = added
	}
	return pr, true
}

// finalState returns the encoding of obj, a deleted object, for the
// handlers: the one prepack made for a stand-in, or a new one outside the
// arena.
func (s *cacheStore[T]) finalState(obj T) (packed, bool) {
	s.pmu.Lock()
	pr, ok := s.pending[any(obj)]
	delete(s.pending, any(obj))
	s.pmu.Unlock()
	if ok {
		return pr.pk, true
	}
	pk, err := s.pack.encode(obj, false)
	return pk, err == nil
}

// forget drops the encoding prepared for obj, if it is a stand-in.
func (s *cacheStore[T]) forget(obj T) {
	if s.pack == nil {
		return
	}
	s.pmu.Lock()
	delete(s.pending, any(obj))
	s.pmu.Unlock()
}

// dropPending forgets the stand-ins that were prepared but never stored
// (a list or watch abandoned halfway).
func (s *cacheStore[T]) dropPending() {
	s.pmu.Lock()
	s.pending = nil
	s.pmu.Unlock()
}

// putW stores obj inside the open transaction and returns the entry now
// stored and the one it replaced.
func (s *cacheStore[T]) putW(k Key, obj T) (cur, old entry[T], existed bool) {
	h, mi, si := s.pos(k)
	sh := s.shardAt(mi, si, true)
	i, existed := sh.items.find(h, k)
	if existed {
		e := &sh.items[i].e
		s.detect.check(k, *e)
		if s.same(e, obj) {
			return *e, *e, true
		}
		old = *e
		s.indexDel(sh, k, old)
		*e = s.entryOf(obj)
		cur = *e
	} else {
		s.w.count++
		cur = s.entryOf(obj)
		sh.items = slices.Insert(sh.items, i, slot[T]{h: h, e: cur})
	}
	s.indexAdd(sh, k, cur)
	return cur, old, existed
}

// put stores obj and returns the Added or Updated delta.
func (s *cacheStore[T]) put(obj T) change[T] {
	s.begin()
	defer s.commit()
	cur, old, existed := s.putW(KeyOf(obj), obj)
	if !existed {
		return delta(deltaAdded, cur)
	}
	return delta(deltaUpdated, cur).withOld(old)
}

// heldPacked returns the encoding stored under k in a compact store, and
// its index values; its pk is zero if there is none.
func (s *cacheStore[T]) heldPacked(k Key) prepared {
	h, mi, si := s.pos(k)
	m := s.cur.Load().mids[mi]
	if m == nil || m.shards[si] == nil {
		return prepared{}
	}
	e, _ := m.shards[si].items.get(h, k)
	return prepared{pk: e.pk, vals: e.vals}
}

// heldRV returns the resourceVersion of the object stored under k, without
// decoding it.
func (s *cacheStore[T]) heldRV(k Key) (string, bool) {
	h, mi, si := s.pos(k)
	m := s.cur.Load().mids[mi]
	if m == nil || m.shards[si] == nil {
		return "", false
	}
	e, ok := m.shards[si].items.get(h, k)
	switch {
	case !ok:
		return "", false
	case e.pk.ok():
		return e.pk.rv(), true
	}
	return e.obj.GetResourceVersion(), true
}

// remove deletes the object under k and returns its entry.
func (s *cacheStore[T]) remove(k Key) (old entry[T], existed bool) {
	if _, ok := s.heldRV(k); !ok {
		return old, false
	}
	s.begin()
	defer s.commit()
	h, mi, si := s.pos(k)
	sh := s.shardAt(mi, si, false)
	e, existed := sh.items.get(h, k)
	if !existed {
		return old, false
	}
	s.detect.check(k, e)
	sh.items.remove(h, k)
	s.indexDel(sh, k, e)
	s.w.count--
	return e, true
}

// replace makes items the complete content and returns the deltas: one
// Replaced per item and one Deleted with FinalStateUnknown per key that is
// gone. Readers see it atomically. Objects are never copied; the old and new
// views share every unchanged object, so a relist holds the objects once.
// It is a [replacement] given every item at once.
func (s *cacheStore[T]) replace(items []T, initial bool) []change[T] {
	r := s.beginReplace()
	for _, o := range items {
		r.put(o)
	}
	return r.commit(initial)
}

// addIndexers adds indexes (existing names are kept as they are) and
// indexes the current content.
func (s *cacheStore[T]) addIndexers(indexers map[string]IndexFunc[T]) {
	s.begin()
	defer s.commit()
	added := map[string]IndexFunc[T]{}
	for name, fn := range indexers {
		if _, ok := s.w.indexers[name]; !ok && fn != nil {
			added[name] = fn
		}
	}
	if len(added) == 0 {
		return
	}
	next := maps.Clone(s.w.indexers)
	maps.Copy(next, added)
	for mi, m := range s.w.mids {
		if m == nil {
			continue
		}
		for si, sh := range m.shards {
			if sh != nil {
				s.indexShard(s.shardAt(mi, si, false), added)
			}
		}
	}
	s.w.indexers = next
}

// clear drops every object (used when an informer is released).
func (s *cacheStore[T]) clear() {
	s.begin()
	defer s.commit()
	s.w.mids = [fan]*mid[T]{}
	s.w.count = 0
	if s.pack != nil {
		s.pack.ar.mu.Lock()
		s.pack.ar.reset()
		s.pack.ar.mu.Unlock()
	}
}

// checkAll compares every stored object with its snapshot.
func (s *cacheStore[T]) checkAll() {
	if s.detect == nil {
		return
	}
	s.cur.Load().each(func(sh *shard[T]) {
		for _, x := range sh.items {
			s.detect.check(x.key(), x.e)
		}
	})
}

// deltas returns one delta of type t for every stored object, in no
// particular order; a compact store's stay encoded until delivered.
func (s *cacheStore[T]) deltas(t deltaType) []change[T] {
	r := s.cur.Load()
	out := make([]change[T], 0, r.count)
	r.each(func(sh *shard[T]) {
		for i := range sh.items {
			out = append(out, delta(t, sh.items[i].e))
		}
	})
	return out
}
