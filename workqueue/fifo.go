package workqueue

// blockLen is how many keys one FIFO block holds.
const blockLen = 128

// maxSpares is how many emptied blocks a FIFO keeps for reuse, so that a
// queue whose depth swings by up to maxSpares·blockLen keys allocates
// nothing.
const maxSpares = 16

// block is one link of the FIFO's unrolled list.
type block[K any] struct {
	keys [blockLen]K
	next *block[K]
}

// fifo is a first-in first-out sequence of keys stored in an unrolled linked
// list of fixed-size blocks. Unlike a slice used as a queue, it never copies
// keys to grow, and in steady state it allocates nothing: blocks emptied at
// the head are kept as spares (up to maxSpares) and reused at the tail.
// Growing to a depth of N costs at most N/blockLen block allocations, and
// the blocks beyond the spares are freed as the queue drains.
//
// The zero fifo is empty and ready to use. It is not safe for concurrent use.
type fifo[K any] struct {
	head, tail *block[K]
	// first is the index of the oldest key in head; end is one past the
	// newest key in tail.
	first, end int
	n          int
	spares     *block[K] // linked through next
	nspares    int
}

// len returns the number of keys in f.
func (f *fifo[K]) len() int { return f.n }

// push appends k.
func (f *fifo[K]) push(k K) {
	if f.tail == nil {
		f.head = f.newBlock()
		f.tail = f.head
		f.first, f.end = 0, 0
	} else if f.end == blockLen {
		b := f.newBlock()
		f.tail.next = b
		f.tail = b
		f.end = 0
	}
	f.tail.keys[f.end] = k
	f.end++
	f.n++
}

// pop removes and returns the oldest key. It must not be called on an empty
// fifo.
func (f *fifo[K]) pop() K {
	var zero K
	b := f.head
	k := b.keys[f.first]
	b.keys[f.first] = zero // let the key's memory go
	f.first++
	f.n--
	switch {
	case f.n == 0:
		// Empty: the popped key was the tail's last, so head == tail;
		// restart at the beginning of that block.
		f.first, f.end = 0, 0
	case f.first == blockLen:
		f.head = b.next
		b.next = nil
		f.first = 0
		f.release(b)
	}
	return k
}

// clear empties f, dropping every key and every block.
func (f *fifo[K]) clear() { *f = fifo[K]{} }

func (f *fifo[K]) newBlock() *block[K] {
	if b := f.spares; b != nil {
		f.spares = b.next
		f.nspares--
		b.next = nil
		return b
	}
	return new(block[K])
}

// release keeps b, which holds no keys, as a spare if there is room.
func (f *fifo[K]) release(b *block[K]) {
	if f.nspares < maxSpares {
		b.next = f.spares
		f.spares = b
		f.nspares++
	}
}

// each calls fn for every key, oldest first.
func (f *fifo[K]) each(fn func(K)) {
	i := f.first
	left := f.n
	for b := f.head; left > 0; b = b.next {
		for ; i < blockLen && left > 0; i++ {
			fn(b.keys[i])
			left--
		}
		i = 0
	}
}
