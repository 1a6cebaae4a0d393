package informer

import "slices"

// The writer's upkeep of a compact store's arena (see arena.go): counting
// which chunks still hold stored encodings, moving the few a chunk still
// holds, and sealing the chunks being filled once a relist is stored.

// keep returns pk, or a copy in a chunk being filled if pk's chunk was
// let go since pk was prepared: the store never refers to a chunk it let
// go. It runs on the writer.
func (p *packer[T]) keep(pk packed) packed {
	p.ar.mu.Lock()
	defer p.ar.mu.Unlock()
	if !pk.c.retired {
		return pk
	}
	return p.ar.copyIn(pk.raw())
}

// tidy runs when a write transaction commits, before it is published:
// once a sixteenth of what was live has been written since the last count,
// it counts again which bytes of each chunk the store (and the prepared
// objects waiting to be stored) hold, and moves the encodings still held
// in the full chunks of which less than five sixths is held, then lets
// those go. Both the count and the moves take time in proportion to the
// objects stored, after writes of a sixteenth of their bytes: a constant
// share of each write.
func (s *cacheStore[T]) tidy() {
	a := &s.pack.ar
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.due() {
		return
	}
	for _, c := range a.chunks {
		c.live = 0
	}
	live := 0
	s.w.each(func(sh *shard[T]) {
		for i := range sh.items {
			if pk := sh.items[i].e.pk; pk.ok() && !pk.c.solo {
				pk.c.live += int(pk.n)
				live += int(pk.n)
			}
		}
	})
	s.pmu.Lock()
	for _, pr := range s.pending {
		if !pr.pk.c.solo {
			pr.pk.c.live += int(pr.pk.n)
		}
	}
	s.pmu.Unlock()
	moving := false
	for _, c := range a.chunks {
		if c.live*liveOf < len(c.buf)*liveFloor && !a.filled(c) {
			c.moving, moving = true, true
		}
	}
	if moving {
		s.move(func(raw []byte) packed { return a.copyIn(raw) })
		a.retire()
	}
	a.written, a.live = 0, live
}

// keepAll, in the open transaction, gives the entries whose chunk was let
// go while they were being staged (a replacement builds its content beside
// the store's, which the upkeep of another write does not see) a copy in a
// chunk being filled.
func (s *cacheStore[T]) keepAll() {
	if s.pack == nil {
		return
	}
	a := &s.pack.ar
	a.mu.Lock()
	defer a.mu.Unlock()
	s.moveIf(func(c *chunk) bool { return c.retired }, a.copyIn)
}

// move gives every stored entry whose encoding is in a chunk marked
// moving a copy of it made by place, in the open transaction.
func (s *cacheStore[T]) move(place func(raw []byte) packed) {
	s.moveIf(func(c *chunk) bool { return c.moving }, place)
}

// moveIf gives every stored entry whose encoding is in a chunk for which
// which reports true a copy of it made by place.
func (s *cacheStore[T]) moveIf(which func(*chunk) bool, place func(raw []byte) packed) {
	for mi := range s.w.mids {
		if s.w.mids[mi] == nil {
			continue
		}
		for si := range fan {
			sh := s.w.mids[mi].shards[si]
			if sh == nil {
				continue
			}
			for i := range sh.items {
				pk := sh.items[i].e.pk
				if !pk.ok() || pk.c.solo || !which(pk.c) {
					continue
				}
				if sh.txn != s.txn {
					sh = s.shardAt(mi, si, false) // a copy: same order
				}
				sh.items[i].e.pk = place(pk.raw())
			}
		}
	}
}

// settle runs after a relist was stored: the chunks being filled that are
// mostly unused have their stored encodings moved into one chunk of the
// exact size, and are let go; and the shards' slices, grown by appending,
// are copied to their length. A cache often stays unchanged for long after
// it has synced; the next write starts a new chunk.
func (s *cacheStore[T]) settle() {
	if s.pack == nil {
		return
	}
	s.begin()
	defer s.commit()
	for mi, m := range s.w.mids {
		if m == nil {
			continue
		}
		for si, sh := range m.shards {
			if sh == nil || cap(sh.items) == len(sh.items) {
				continue
			}
			// The copy shares the index with the published shard: this
			// transaction changes no index (moves change only encodings),
			// and the next one copies the shard before changing it.
			s.midAt(mi).shards[si] = &shard[T]{items: slices.Clone(sh.items), index: sh.index, txn: s.txn}
		}
	}
	a := &s.pack.ar
	a.mu.Lock()
	defer a.mu.Unlock()
	moving := false
	for _, c := range a.fill {
		if (len(c.buf)-c.used)*sealSlack > len(c.buf) {
			c.moving, moving = true, true
		}
	}
	if !moving {
		return
	}
	size := 0
	s.w.each(func(sh *shard[T]) {
		for i := range sh.items {
			if pk := sh.items[i].e.pk; pk.ok() && pk.c.moving {
				size += int(pk.n)
			}
		}
	})
	if size > 0 {
		dst := &chunk{buf: make([]byte, size)}
		a.chunks = append(a.chunks, dst)
		a.total += size
		s.move(func(raw []byte) packed {
			p := packed{c: dst, off: uint32(dst.used), n: uint32(len(raw))}
			dst.used += copy(dst.buf[dst.used:], raw)
			return p
		})
	}
	a.retire()
}
