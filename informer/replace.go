package informer

import (
	"maps"
	"slices"
)

// replacement is a complete state being received (an initial list or a
// relist) and written into the store as it arrives: a write transaction
// that stays open while the list is received and builds the new content
// beside the current one. Readers see the current content until commit,
// which publishes the new content at once and returns the deltas; abort
// (or simply dropping the replacement) leaves the store as it was.
//
// Each object is stored when it is put: a compact store encodes it at once
// and keeps the encoding (or the one it holds, for an unchanged object),
// so a list being received holds what the cache will hold, its entries and
// one delta per object, and no decoded object outlives its put.
//
// Only the store's writer uses a replacement, one at a time, from one
// goroutine. AddIndexers may run while it is open (commit indexes the new
// content by the indexes added meanwhile); put and remove must not, since
// commit publishes the new content in place of whatever the store holds.
type replacement[T Object] struct {
	s   *cacheStore[T]
	id  uint64                  // the transaction of the shards being built
	idx map[string]IndexFunc[T] // the indexers when it was opened
	// next is the new content, built from empty; its shards are the
	// replacement's own until commit.
	next root[T]
	// deltas holds one Replaced per key put, in the order of the first
	// put of each key; pos finds a key's delta, built on the first put of
	// a key already staged or the first remove.
	deltas []change[T]
	pos    map[Key]int
	closed bool
}

// beginReplace opens a replacement of the store's whole content.
func (s *cacheStore[T]) beginReplace() *replacement[T] {
	s.wmu.Lock()
	s.txn++
	id := s.txn
	idx := s.cur.Load().indexers
	s.wmu.Unlock()
	return &replacement[T]{s: s, id: id, idx: idx}
}

// held returns the entry the store holds now under k (hash h).
func (r *replacement[T]) held(h uint64, mi, si int, k Key) (entry[T], bool) {
	m := r.s.cur.Load().mids[mi]
	if m == nil || m.shards[si] == nil {
		return entry[T]{}, false
	}
	return m.shards[si].items.get(h, k)
}

// shard returns the new content's shard at (mi, si), created if absent.
func (r *replacement[T]) shard(mi, si int) *shard[T] {
	m := r.next.mids[mi]
	if m == nil {
		m = &mid[T]{txn: r.id}
		r.next.mids[mi] = m
	}
	sh := m.shards[si]
	if sh == nil {
		sh = &shard[T]{txn: r.id}
		m.shards[si] = sh
	}
	return sh
}

// put stores obj (prepared: a decoded object, or a compact store's
// stand-in) in the new content, replacing what an earlier put stored under
// its key. An object the store holds already (the same object, or in a
// compact store the same resourceVersion) keeps its entry.
func (r *replacement[T]) put(obj T) {
	s := r.s
	k := KeyOf(obj)
	h, mi, si := s.pos(k)
	old, existed := r.held(h, mi, si, k)
	var e entry[T]
	switch {
	case existed && s.same(&old, obj):
		e = old
	case s.pack != nil:
		if pr, ok := s.packedOf(obj, r.idx); ok {
			e = entry[T]{pk: s.pack.keep(pr.pk), vals: pr.vals}
			break
		}
		// Not encodable (never seen for a valid object): keep it decoded.
		fallthrough
	default:
		e = entry[T]{obj: obj, snap: s.detect.snapshot(obj)}
	}
	if existed {
		s.detect.check(k, old)
	}
	d := delta(deltaReplaced, e)
	if s.pack == nil {
		d.Object = obj
	}
	if existed {
		d = d.withOld(old)
	}
	sh := r.shard(mi, si)
	i, staged := sh.items.find(h, k)
	if !staged {
		sh.items = slices.Insert(sh.items, i, slot[T]{h: h, e: e})
		indexAddTo(sh, k, e, r.idx)
		r.next.count++
		if r.pos != nil {
			r.pos[k] = len(r.deltas)
		}
		r.deltas = append(r.deltas, d)
		return
	}
	// A second state of a key in one list (a streaming list's initial
	// events may modify an object they added).
	indexDelFrom(sh, k, sh.items[i].e, r.idx)
	sh.items[i].e = e
	indexAddTo(sh, k, e, r.idx)
	r.deltas[r.position(k)] = d
}

// remove drops k from the new content (a streaming list's initial events
// may delete an object they added).
func (r *replacement[T]) remove(k Key) {
	h, mi, si := r.s.pos(k)
	m := r.next.mids[mi]
	if m == nil || m.shards[si] == nil {
		return
	}
	sh := m.shards[si]
	i, ok := sh.items.find(h, k)
	if !ok {
		return
	}
	indexDelFrom(sh, k, sh.items[i].e, r.idx)
	sh.items.remove(h, k)
	r.next.count--
	p := r.position(k)
	last := len(r.deltas) - 1
	if p != last {
		r.deltas[p] = r.deltas[last]
		r.pos[deltaKey(r.deltas[p])] = p
	}
	r.deltas[last] = change[T]{}
	r.deltas = r.deltas[:last]
	delete(r.pos, k)
}

// position returns the index of k's delta, building the key index on
// first use.
func (r *replacement[T]) position(k Key) int {
	if r.pos == nil {
		r.pos = make(map[Key]int, len(r.deltas))
		for i, d := range r.deltas {
			r.pos[deltaKey(d)] = i
		}
	}
	return r.pos[k]
}

// deltaKey returns the key of the object of d.
func deltaKey[T Object](d change[T]) Key {
	if d.objP.ok() {
		return d.objP.key()
	}
	return KeyOf(d.Object)
}

// len returns the number of objects put and not removed.
func (r *replacement[T]) len() int { return r.next.count }

// commit makes the new content the store's, atomically for readers, and
// returns the deltas: one Replaced per object put (with the object held
// before as Old, if any), in the order they were first put, then one
// Deleted with FinalStateUnknown per key the store held that the new
// content lacks. initial marks every delta Initial. The replacement is
// spent.
func (r *replacement[T]) commit(initial bool) []change[T] {
	s := r.s
	s.begin()
	defer s.commit()
	r.closed = true
	if s.pack != nil {
		s.dropPending()
	}
	cur := s.w
	// Indexes added while the list was received.
	added := map[string]IndexFunc[T]{}
	for name, fn := range cur.indexers {
		if _, ok := r.idx[name]; !ok && fn != nil {
			added[name] = fn
		}
	}
	if len(added) > 0 {
		r.next.each(func(sh *shard[T]) { s.indexShard(sh, added) })
	}
	deltas := r.deltas
	cur.each(func(sh *shard[T]) {
		for _, x := range sh.items {
			if r.has(x.h, x.key()) {
				continue
			}
			s.detect.check(x.key(), x.e)
			d := delta(deltaDeleted, x.e)
			d.FinalStateUnknown = true
			deltas = append(deltas, d)
		}
	})
	if initial {
		for i := range deltas {
			deltas[i].Initial = true
		}
	}
	r.next.indexers = cur.indexers
	*s.w = r.next
	s.keepAll()
	r.next, r.deltas, r.pos = root[T]{}, nil, nil
	return deltas
}

// has reports whether the new content holds k (hash h).
func (r *replacement[T]) has(h uint64, k Key) bool {
	m := r.next.mids[int(h&(fan-1))]
	if m == nil {
		return false
	}
	sh := m.shards[int((h>>fanBits)&(fan-1))]
	if sh == nil {
		return false
	}
	_, ok := sh.items.find(h, k)
	return ok
}

// abort drops the new content: the store keeps what it holds. It may be
// called after commit, and then does nothing.
func (r *replacement[T]) abort() {
	if r.closed {
		return
	}
	r.closed = true
	if r.s.pack != nil {
		r.s.dropPending()
	}
	r.next, r.deltas, r.pos = root[T]{}, nil, nil
}

// indexShard adds the entries of sh, a shard only the caller may change,
// to the indexes named in added. A packed entry gets a new packed value
// with the added indexes' values, computed on a decoded copy, since the
// one it has may be shared with earlier views.
func (s *cacheStore[T]) indexShard(sh *shard[T], added map[string]IndexFunc[T]) {
	for j := range sh.items {
		x := &sh.items[j]
		if x.e.pk.ok() {
			var obj T
			var vals map[string][]string
			for name, fn := range added {
				if _, have := x.e.vals[name]; have {
					continue
				}
				if vals == nil {
					obj = s.pack.unpack(x.e.pk)
					vals = maps.Clone(x.e.vals)
					if vals == nil {
						vals = make(map[string][]string, len(added))
					}
				}
				vals[name] = indexValuesOf(fn, obj)
			}
			if vals != nil {
				x.e.vals = vals
			}
		}
		indexAddTo(sh, x.key(), x.e, added)
	}
}
