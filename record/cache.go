package record

import "hash/maphash"

// seriesCache holds the tracked series: found by key, evicted least
// recently seen first. It is indexed by a hash of the key rather than by
// the key itself, so that a series's key (seven strings and two object
// keys) is stored once, in the series, and its LRU links live in the
// series too. Not safe for concurrent use: the Recorder's lock guards it.
type seriesCache struct {
	seed       maphash.Seed
	byHash     map[uint64]*series // chains through series.hnext
	head, tail *series            // most and least recently seen
	n          int
	// hashOf, when set, replaces the seeded hash (tests make keys collide).
	hashOf func(seriesKey) uint64
}

func (c *seriesCache) hash(k seriesKey) uint64 {
	if c.hashOf != nil {
		return c.hashOf(k)
	}
	return maphash.Comparable(c.seed, k)
}

func newSeriesCache() seriesCache {
	return seriesCache{seed: maphash.MakeSeed(), byHash: map[uint64]*series{}}
}

func (c *seriesCache) get(k seriesKey) *series {
	for s := c.byHash[c.hash(k)]; s != nil; s = s.hnext {
		if s.key == k {
			return s
		}
	}
	return nil
}

// add puts s, whose key is not in c, in front.
func (c *seriesCache) add(s *series) {
	s.hash = c.hash(s.key)
	s.hnext = c.byHash[s.hash]
	c.byHash[s.hash] = s
	c.pushFront(s)
	c.n++
}

// touch makes s, which is in c, the most recently seen.
func (c *seriesCache) touch(s *series) {
	if c.head == s {
		return
	}
	c.unlink(s)
	c.pushFront(s)
}

// remove takes s, which is in c, out of c.
func (c *seriesCache) remove(s *series) {
	p := c.byHash[s.hash]
	if p == s {
		if s.hnext == nil {
			delete(c.byHash, s.hash)
		} else {
			c.byHash[s.hash] = s.hnext
		}
	} else {
		for p.hnext != s {
			p = p.hnext
		}
		p.hnext = s.hnext
	}
	s.hnext = nil
	c.unlink(s)
	c.n--
}

// oldest returns the least recently seen series, nil if c is empty.
func (c *seriesCache) oldest() *series { return c.tail }

func (c *seriesCache) len() int { return c.n }

func (c *seriesCache) pushFront(s *series) {
	s.prev, s.next = nil, c.head
	if c.head != nil {
		c.head.prev = s
	}
	c.head = s
	if c.tail == nil {
		c.tail = s
	}
}

func (c *seriesCache) unlink(s *series) {
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		c.head = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	} else {
		c.tail = s.prev
	}
	s.prev, s.next = nil, nil
}
