package workqueue

import "hash/maphash"

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
	key   K
	next  uint32 // the next free slot, while free
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
	// past burst, is given back (a 1 MiB index, and 64Ki slots).
	keptBuckets = 1 << 17
	keptChunks  = 128
)

// table records the state of every key a Queue is waiting for or has
// handed out, and forgets a key as soon as its worker is done with it.
//
// It is a hash table of its own rather than a Go map so that the hashing,
// the costly part of a lookup, happens outside the queue's lock: Add and
// Done hash the key first (see hashed) and the table only compares. Its
// index is an open-addressing array of 8-byte buckets without pointers,
// half empty at most, so a lookup touches one cache line, and the garbage
// collector never scans it. A bucket holds the key's slot number and 32
// bits of its hash; the slot, in a chunked arena, holds the key and its
// state. Queue.ready holds slot numbers, so taking a key out of it touches
// no index.
//
// The zero table is empty and ready to use (with the zero hash seed; a
// Queue sets a random one). It is not safe for concurrent use.
type table[K comparable] struct {
	seed maphash.Seed
	// buckets is the index: 0 is empty, else the high 32 bits are the low
	// 32 bits of the key's hash (which also give its home bucket) and the
	// low 32 bits are its slot number plus one. Linear probing, with
	// deletion by backward shift (no tombstones).
	buckets []uint64
	count   int // keys in the index

	chunks []*[chunkLen]slot[K]
	n      uint32 // slots handed out so far: the arena's high-water mark
	free   uint32 // head of the free list, while nfree > 0
	nfree  int    // slots on the free list
	held   int    // slots in stateHeld or stateHeldAgain
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

// lookup returns the slot number of h.key, if the key is in the table.
func (t *table[K]) lookup(h hashed[K]) (uint32, bool) {
	if t.count == 0 {
		return 0, false
	}
	mask := uint32(len(t.buckets) - 1)
	tag := uint32(h.hash)
	for b := tag & mask; ; b = (b + 1) & mask {
		e := t.buckets[b]
		if e == 0 {
			return 0, false
		}
		if uint32(e>>32) == tag {
			if i := uint32(e) - 1; t.at(i).key == h.key {
				return i, true
			}
		}
	}
}

// insert adds h.key, which must not be in the table, in state s, and
// returns its slot number. (Slot numbers are 32 bits: a table holds fewer
// than 2³² keys, far more than fit in memory.)
func (t *table[K]) insert(h hashed[K], s keyState) uint32 {
	if 2*(t.count+1) > len(t.buckets) {
		t.resize(max(minBuckets, 2*len(t.buckets)))
	}
	var i uint32
	if t.nfree > 0 {
		i = t.free
		t.free = t.at(i).next
		t.nfree--
	} else {
		i = t.n
		if int(i>>chunkShift) == len(t.chunks) {
			t.chunks = append(t.chunks, new([chunkLen]slot[K]))
		}
		t.n++
	}
	sl := t.at(i)
	sl.key, sl.state = h.key, s
	t.place(uint64(uint32(h.hash))<<32 | uint64(i+1))
	t.count++
	return i
}

// place puts bucket entry e in the first empty bucket from its home.
func (t *table[K]) place(e uint64) {
	mask := uint32(len(t.buckets) - 1)
	b := uint32(e>>32) & mask
	for t.buckets[b] != 0 {
		b = (b + 1) & mask
	}
	t.buckets[b] = e
}

// remove deletes the key in slot i, which h names, and frees the slot.
func (t *table[K]) remove(h hashed[K], i uint32) {
	mask := uint32(len(t.buckets) - 1)
	want := uint64(uint32(h.hash))<<32 | uint64(i+1)
	b := uint32(h.hash) & mask
	for t.buckets[b] != want {
		b = (b + 1) & mask
	}
	// Backward shift: move later entries of the run into the hole when
	// the hole lies between their home and where they are.
	for j := (b + 1) & mask; t.buckets[j] != 0; j = (j + 1) & mask {
		home := uint32(t.buckets[j]>>32) & mask
		if (j-home)&mask >= (j-b)&mask {
			t.buckets[b] = t.buckets[j]
			b = j
		}
	}
	t.buckets[b] = 0
	t.count--

	var zero K
	sl := t.at(i)
	sl.key, sl.state, sl.next = zero, stateFree, t.free
	t.free = i
	t.nfree++
	switch {
	case t.count == 0:
		// Empty: every slot is free. Start again from slot 0, keeping
		// memory up to the kept sizes.
		if len(t.chunks) > keptChunks {
			clear(t.chunks[keptChunks:])
			t.chunks = t.chunks[:keptChunks]
		}
		t.n, t.free, t.nfree = 0, 0, 0
		if len(t.buckets) > keptBuckets {
			t.buckets = make([]uint64, minBuckets)
		}
	case len(t.buckets) > keptBuckets && 8*t.count < len(t.buckets):
		t.shrink()
	}
}

// resize rebuilds the index with n buckets, a power of two.
func (t *table[K]) resize(n int) {
	old := t.buckets
	t.buckets = make([]uint64, n)
	for _, e := range old {
		if e != 0 {
			t.place(e)
		}
	}
}

// shrink gives back the memory of a past burst once the table is mostly
// empty: the index is halved and the arena loses its trailing chunks that
// hold no key (beyond keptChunks).
func (t *table[K]) shrink() {
	t.resize(len(t.buckets) / 2)
	// Drop trailing chunks that hold only free slots. The free list
	// threads through them, so rebuild it from the chunks kept.
	keep := len(t.chunks)
	for keep > keptChunks && t.chunkFree(keep-1) {
		keep--
	}
	if keep == len(t.chunks) {
		return
	}
	clear(t.chunks[keep:])
	t.chunks = t.chunks[:keep]
	t.n = min(t.n, uint32(keep)*chunkLen)
	t.free, t.nfree = 0, 0
	for i := t.n; i > 0; i-- {
		if sl := t.at(i - 1); sl.state == stateFree {
			sl.next = t.free
			t.free = i - 1
			t.nfree++
		}
	}
}

// chunkFree reports whether every slot of chunk c is free.
func (t *table[K]) chunkFree(c int) bool {
	for i := range t.chunks[c] {
		if uint32(c)*chunkLen+uint32(i) >= t.n {
			break
		}
		if t.chunks[c][i].state != stateFree {
			return false
		}
	}
	return true
}
