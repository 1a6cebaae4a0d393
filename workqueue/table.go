package workqueue

import (
	"hash/maphash"
	"math/bits"
)

// keyState is where a key known to a Queue stands.
type keyState uint8

const (
	// stateFree: the slot holds no key and is on the free list.
	stateFree keyState = iota
	// stateQueued: the key waits in Queue.ready.
	stateQueued
	// stateHeld: a worker holds the key.
	stateHeld
	// stateHeldAgain: a worker holds the key, and it was added again since.
	stateHeldAgain
)

// hashed is a key with its hash, computed before taking the queue's lock.
type hashed[K any] struct {
	key  K
	hash uint64
}

// slot is one key's entry in a table.
type slot[K any] struct {
	key K
	// aux is, while the slot is free, the next free slot; otherwise the
	// low 32 bits of the key's hash (its tag).
	aux   uint32
	state keyState
}

// Slots are allocated in chunks of chunkLen, so that the table never copies
// slots to grow and a slot's address is stable.
const (
	chunkShift = 9
	chunkLen   = 1 << chunkShift
	chunkMask  = chunkLen - 1
)

// Sizes of a table's memory.
const (
	// minBuckets is the smallest size of the index.
	minBuckets = 64
	// keptBuckets and keptChunks bound what a table keeps when it shrinks
	// or empties: memory up to these sizes is reused, so that a queue
	// whose depth swings allocates nothing; memory beyond them, from a
	// past burst, is given back (a 2 MiB index, and 64Ki slots).
	keptBuckets = 1 << 18
	keptChunks  = 128
)

// table records the state of every key a Queue is waiting for or has
// handed out.
//
// It is a hash table of its own rather than a Go map so that the hashing,
// the costly part of a lookup, happens outside the queue's lock: Add and
// Done hash the key first (see hashed) and the table only compares. Its
// index is an open-addressing array of 8-byte buckets without pointers,
// at most half full, so a lookup touches about one cache line and the
// garbage collector never scans it. A bucket holds 32 bits of the key's
// hash (its tag) and its slot number; the slot, in a chunked arena, holds
// the key, its tag and its state.
//
// Buckets are not deleted one by one: when a key's slot is freed its
// bucket goes stale, and a lookup skips it because the slot it names is
// free or holds another key. The Queue rebuilds the index from its live
// keys (see Queue.reindexLocked) when stale and live buckets fill half of it,
// which costs far less than one random delete per key. So Add costs one
// probe of the index, Get none (Queue.ready holds slot numbers), and Done
// none (the Queue finds a held key in its short list of held slots).
//
// The zero table is empty and ready to use (with the zero hash seed; a
// Queue sets a random one). It is not safe for concurrent use.
type table[K comparable] struct {
	seed maphash.Seed
	// buckets is the index: 0 is empty, else the high 32 bits are a tag
	// (which also gives the home bucket) and the low 32 bits a slot number
	// plus one. Linear probing.
	buckets []uint64
	entries int // buckets in use, live or stale
	live    int // slots in use

	chunks []*[chunkLen]slot[K]
	// times, when the Queue has metrics (withTimes), parallels chunks:
	// the times of slot i are times[i>>chunkShift][i&chunkMask]. They are
	// kept apart from the slots so that a queue without metrics pays
	// nothing for them.
	times     []*[chunkLen]slotTimes
	withTimes bool
	n         uint32 // slots handed out so far: the arena's high-water mark
	free      uint32 // head of the free list, while nfree > 0
	nfree     int    // slots on the free list
}

// slotTimes are the times a Queue with metrics keeps for a key, in
// nanoseconds since the queue's epoch (see Queue.now).
type slotTimes struct {
	// queued is when the key started waiting for a worker: its add, or
	// for a held key added again, that re-add.
	queued int64
	// started is when a worker took the key; meaningful while it is held.
	started int64
}

// hash returns k with its hash. It reads only the seed, which is set before
// the table is shared, so it needs no lock.
func (t *table[K]) hash(k K) hashed[K] {
	return hashed[K]{k, maphash.Comparable(t.seed, k)}
}

// at returns slot i, which must have been handed out.
func (t *table[K]) at(i uint32) *slot[K] {
	return &t.chunks[i>>chunkShift][i&chunkMask]
}

// timesAt returns the times of slot i, which must have been handed out,
// in a table withTimes.
func (t *table[K]) timesAt(i uint32) *slotTimes {
	return &t.times[i>>chunkShift][i&chunkMask]
}

// lookup returns the slot number of h.key, if the key is in the table.
func (t *table[K]) lookup(h hashed[K]) (uint32, bool) {
	if t.live == 0 {
		return 0, false
	}
	mask := uint32(len(t.buckets) - 1)
	tag := uint32(h.hash)
	for b := tag & mask; ; b = (b + 1) & mask {
		e := t.buckets[b]
		if e == 0 {
			return 0, false
		}
		// A stale bucket may name a free slot, a slot reused by another
		// key, or one beyond the arena since it started again.
		if i := uint32(e) - 1; uint32(e>>32) == tag && i < t.n {
			if sl := t.at(i); sl.state != stateFree && sl.aux == tag && sl.key == h.key {
				return i, true
			}
		}
	}
}

// full reports whether the index needs rebuilding before one more insert.
func (t *table[K]) full() bool {
	return 2*(t.entries+1) > len(t.buckets)
}

// insert adds h.key, which must not be in the table, in state s, and
// returns its slot number. The index must not be full. (Slot numbers are
// 32 bits: a table holds fewer than 2³² keys, far more than fit in
// memory.)
func (t *table[K]) insert(h hashed[K], s keyState) uint32 {
	var i uint32
	if t.nfree > 0 {
		i = t.free
		t.free = t.at(i).aux
		t.nfree--
	} else {
		i = t.n
		if int(i>>chunkShift) == len(t.chunks) {
			t.chunks = append(t.chunks, new([chunkLen]slot[K]))
			if t.withTimes {
				t.times = append(t.times, new([chunkLen]slotTimes))
			}
		}
		t.n++
	}
	sl := t.at(i)
	sl.key, sl.aux, sl.state = h.key, uint32(h.hash), s
	t.live++
	t.place(i)
	return i
}

// place records slot i, which holds a key, in the index.
func (t *table[K]) place(i uint32) {
	tag := t.at(i).aux
	mask := uint32(len(t.buckets) - 1)
	b := tag & mask
	for t.buckets[b] != 0 {
		b = (b + 1) & mask
	}
	t.buckets[b] = uint64(tag)<<32 | uint64(i+1)
	t.entries++
}

// release frees slot i; its bucket goes stale. When the table empties, the
// arena starts again from slot 0, giving back chunks beyond keptChunks.
func (t *table[K]) release(i uint32) {
	var zero K
	sl := t.at(i)
	sl.key, sl.state, sl.aux = zero, stateFree, t.free
	t.free = i
	t.nfree++
	t.live--
	if t.live == 0 {
		if len(t.chunks) > keptChunks {
			clear(t.chunks[keptChunks:])
			t.chunks = t.chunks[:keptChunks]
			if t.withTimes {
				clear(t.times[keptChunks:])
				t.times = t.times[:keptChunks]
			}
		}
		t.n, t.free, t.nfree = 0, 0, 0
		if len(t.buckets) > keptBuckets {
			t.buckets, t.entries = nil, 0
		}
	}
}

// rebuild makes a fresh index holding the slots that each yields, which
// must be every slot in use, and no stale bucket. The index is sized for
// four times the live keys, so that the next rebuild is as far away as the
// live keys are many; an index of up to keptBuckets is reused rather than
// shrunk.
func (t *table[K]) rebuild(each func(yield func(uint32))) {
	size := max(minBuckets, 1<<bits.Len(uint(4*t.live)))
	if size < len(t.buckets) && len(t.buckets) <= keptBuckets {
		size = len(t.buckets)
	}
	if size == len(t.buckets) {
		clear(t.buckets)
	} else {
		t.buckets = make([]uint64, size)
	}
	t.entries = 0
	each(t.place)
}
