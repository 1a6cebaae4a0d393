package informer

import "slices"

// slot is one stored object with the hash of its key. The key itself is
// read from the object (in place, from a packed one's encoding) rather
// than kept beside it.
type slot[T Object] struct {
	h uint64
	e entry[T]
}

// key returns the slot's key; a packed object's views its encoding.
func (x *slot[T]) key() Key {
	if x.e.pk.ok() {
		return x.e.pk.key()
	}
	return KeyOf(x.e.obj)
}

// slots holds a shard's objects sorted by key hash. Copying it on write is
// one allocation and one memmove, where copying a map rebuilds its table;
// a shard holds a few dozen objects, so a binary search finds a key as fast
// as a map lookup.
type slots[T Object] []slot[T]

// find returns the position of k (hash h), or where it would be inserted.
func (s slots[T]) find(h uint64, k Key) (int, bool) {
	i, _ := slices.BinarySearchFunc(s, h, func(x slot[T], h uint64) int {
		switch {
		case x.h < h:
			return -1
		case x.h > h:
			return 1
		}
		return 0
	})
	for j := i; j < len(s) && s[j].h == h; j++ {
		if s[j].key() == k {
			return j, true
		}
	}
	return i, false
}

// get returns the entry of k (hash h).
func (s slots[T]) get(h uint64, k Key) (entry[T], bool) {
	if i, ok := s.find(h, k); ok {
		return s[i].e, true
	}
	return entry[T]{}, false
}

// set stores e under k (hash h), in place.
func (s *slots[T]) set(h uint64, k Key, e entry[T]) {
	i, ok := s.find(h, k)
	if ok {
		(*s)[i].e = e
		return
	}
	*s = slices.Insert(*s, i, slot[T]{h: h, e: e})
}

// remove deletes k (hash h), in place, and reports whether it was there.
func (s *slots[T]) remove(h uint64, k Key) bool {
	i, ok := s.find(h, k)
	if ok {
		*s = slices.Delete(*s, i, i+1)
	}
	return ok
}
