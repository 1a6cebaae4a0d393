package dedup

// This file is how a Table forgets: by generation, and with generations
// sized by the number of objects it serves.

// A generation of a table that has met n objects ends after
// min(limit, max(min, perObject·n)) insertions, limit being Options.Strings
// or Options.Maps. A cache of thousands of objects gets the whole limit; a
// cache of a few dozen, whose values may change all the time, keeps a few
// hundred values that no object holds any more rather than tens of
// thousands. The values that recur across those objects are used in
// every generation and stay.
const (
	minStrings       = 128
	stringsPerObject = 8
	minMaps          = 32
	mapsPerObject    = 2
)

// gen is a map of bounded size that forgets what is not used: entries are
// stamped with the generation in which they were last used; after every
// size() insertions a new generation starts and entries not used in the
// current or the previous generation are dropped. A hit costs one lookup.
type gen[K comparable, V any] struct {
	limit, min, perObject int
	objects               *objects // of the table
	m                     map[K]entry[V]
	cur                   uint32
	added                 int
}

type entry[V any] struct {
	v   V
	gen uint32
}

func newGen[K comparable, V any](limit, min, perObject int, objects *objects) gen[K, V] {
	return gen[K, V]{limit: limit, min: min, perObject: perObject, objects: objects, m: make(map[K]entry[V])}
}

// size is how many insertions the current generation takes. A table
// that has met no named object (its objects cannot be counted) takes the
// limit.
func (g *gen[K, V]) size() int {
	n := g.objects.n
	if n == 0 {
		return g.limit
	}
	return min(g.limit, max(g.min, g.perObject*n))
}

func (g *gen[K, V]) get(k K) (V, bool) {
	e, ok := g.m[k]
	if ok && e.gen != g.cur {
		e.gen = g.cur
		g.m[k] = e
	}
	return e.v, ok
}

func (g *gen[K, V]) put(k K, v V) {
	// Checked at every insertion, not once per generation: while a cache
	// fills (an informer's first list), its count grows ahead of what it
	// inserts, and its generations with it.
	if g.added >= g.size() {
		g.cur++
		g.added = 0
		for k, e := range g.m {
			if g.cur-e.gen > 1 {
				delete(g.m, k)
			}
		}
	}
	g.m[k] = entry[V]{v: v, gen: g.cur}
	g.added++
}

// objects counts the distinct objects a table has met, by owner (ownerOf):
// exact up to collisions of the owners' 16-bit hashes, so it saturates at
// 65,536, where every generation takes its limit anyway. Objects deleted
// since stay counted.
type objects struct {
	met [1 << 16 / 64]uint64
	n   int
}

// add counts owner unless it was counted; 0, an object of unknown name, is
// not.
func (o *objects) add(owner uint16) {
	if owner == 0 {
		return
	}
	w, bit := &o.met[owner>>6], uint64(1)<<(owner&63)
	if *w&bit == 0 {
		*w |= bit
		o.n++
	}
}
