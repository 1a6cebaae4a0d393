package informer

import (
	"math/bits"
	"sync"
)

// A compact store packs the encodings of its objects into shared chunks
// instead of giving each its own allocation: an allocation of a few KiB is
// rounded up to the allocator's next size class (a twentieth of it on
// average) and costs a slice header and a pointer of its own. A chunk is
// filled by appending, and the bytes below its fill never change again, so
// a reader may view them (the strings of a decoded object do) while the
// writer appends further. A chunk is never reused: when most of its bytes
// belong to objects no longer stored, the writer copies the encodings the
// store still holds into a chunk being filled and lets the old chunk go;
// readers that still view it keep it alive until they drop their objects.

const (
	// chunkMin and chunkMax bound the size of a new chunk, which is a
	// thirty-second of the bytes the arena holds, so that the chunks being
	// filled are a small part of a large cache and a small cache keeps
	// small chunks.
	chunkMin = 4 << 10
	chunkMax = 64 << 10
	// soloMin is the size from which an encoding gets an allocation of its
	// own: a chunk would hold too few of them to pay for its tail. chunkMax
	// bounds what a string a reader keeps can hold in memory: the whole
	// chunk it views.
	soloMin = 16 << 10
	// filling is how many chunks are filled at once: an encoding goes to
	// the one it fits most tightly, so the tail a chunk is left with when
	// nothing fits any more is small.
	filling = 4
	// liveFloor: a full chunk of which fewer than liveFloor/liveOf of the
	// bytes belong to stored objects has them moved and is let go.
	liveFloor, liveOf = 5, 6
	// sealSlack: after a relist, a chunk being filled with more than
	// 1/sealSlack of it unused has its encodings moved to a chunk of their
	// exact size, since a cache often stays unchanged for long after it
	// has synced.
	sealSlack = 32
)

// chunk is one block of encodings.
type chunk struct {
	// buf is set when the chunk is made and never changes; its bytes
	// below used never change either.
	buf []byte
	// The writer's bookkeeping, under arena.mu; readers never look at it.
	used    int
	live    int  // bytes of stored encodings, as of the last count
	solo    bool // an allocation of one encoding, never moved
	retired bool // let go: the store no longer refers to it
	moving  bool // being let go
}

// packed is one object held in its encoded form: n bytes at off in chunk
// c. The bytes never change: readers decode them concurrently and alias
// them. The zero value holds nothing.
type packed struct {
	c   *chunk
	off uint32
	n   uint32
}

// ok reports whether p holds an encoding.
func (p packed) ok() bool { return p.c != nil }

// raw returns the encoding. Its capacity ends with it, so appending to it
// never writes into the chunk.
func (p packed) raw() []byte { return p.c.buf[p.off : p.off+p.n : p.off+p.n] }

// solo returns raw held in an allocation of its own, outside any arena.
func solo(raw []byte) packed {
	return packed{c: &chunk{buf: raw, used: len(raw), solo: true}, n: uint32(len(raw))}
}

// arena allocates the space of a compact store's encodings. Its methods
// are called with mu held.
type arena struct {
	mu     sync.Mutex
	fill   []*chunk // chunks being filled, at most filling
	chunks []*chunk // every chunk the store may refer to but solo ones
	total  int      // bytes of chunks
	// written is the number of bytes placed since the last count, live
	// the number of stored bytes that count found.
	written, live int
	gone          int // chunks let go, for tests
}

// alloc returns room for an encoding of n bytes (n < 1<<32), which the
// caller writes before the store publishes it.
func (a *arena) alloc(n int) packed {
	if n >= soloMin {
		return solo(make([]byte, n))
	}
	best := -1
	for i, c := range a.fill {
		if free := len(c.buf) - c.used; free >= n && (best < 0 || free < len(a.fill[best].buf)-a.fill[best].used) {
			best = i
		}
	}
	if best < 0 {
		size := max(chunkMin, min(chunkMax, a.total/32), n)
		size = 1 << bits.Len(uint(size-1)) // a size class of its own: no rounding
		c := &chunk{buf: make([]byte, size)}
		a.chunks = append(a.chunks, c)
		a.total += size
		if len(a.fill) == filling {
			// The fullest chunk stops being filled.
			most := 0
			for i, f := range a.fill {
				if len(f.buf)-f.used < len(a.fill[most].buf)-a.fill[most].used {
					most = i
				}
			}
			a.fill[most] = a.fill[len(a.fill)-1]
			a.fill = a.fill[:len(a.fill)-1]
		}
		a.fill = append(a.fill, c)
		best = len(a.fill) - 1
	}
	c := a.fill[best]
	p := packed{c: c, off: uint32(c.used), n: uint32(n)}
	c.used += n
	a.written += n
	return p
}

// copyIn returns a copy of raw placed in the arena.
func (a *arena) copyIn(raw []byte) packed {
	p := a.alloc(len(raw))
	copy(p.raw(), raw)
	return p
}

// due reports whether enough has been written since the last count that
// the chunks should be looked at again: a sixteenth of what was live.
func (a *arena) due() bool { return a.written > max(a.live/16, chunkMin) }

// filled reports whether c is being filled.
func (a *arena) filled(c *chunk) bool {
	for _, f := range a.fill {
		if f == c {
			return true
		}
	}
	return false
}

// retire lets go of the chunks marked moving: the store refers to none of
// them any more.
func (a *arena) retire() {
	kept := a.chunks[:0]
	for _, c := range a.chunks {
		if c.moving {
			c.moving, c.retired = false, true
			a.total -= len(c.buf)
			a.gone++
			continue
		}
		kept = append(kept, c)
	}
	clear(a.chunks[len(kept):])
	a.chunks = kept
	fill := a.fill[:0]
	for _, c := range a.fill {
		if !c.retired {
			fill = append(fill, c)
		}
	}
	clear(a.fill[len(fill):])
	a.fill = fill
}

// reset lets go of every chunk.
func (a *arena) reset() {
	for _, c := range a.chunks {
		c.retired = true
	}
	a.fill, a.chunks = nil, nil
	a.total, a.written, a.live = 0, 0, 0
}
