package workqueue

import (
	"math/rand/v2"
	"testing"
)

// The key table agrees with a Go map through random inserts and releases,
// across rebuilds of its index and emptying, including the zero key.
func TestTableAgreesWithAMap(t *testing.T) {
	var tb table[int]
	model := map[int]uint32{} // key → slot
	rebuild := func() {
		tb.rebuild(func(yield func(uint32)) {
			for _, i := range model {
				yield(i)
			}
		})
	}
	r := rand.New(rand.NewPCG(1, 2))
	for step := range 400_000 {
		// Phases of growing key spaces; some phases drain the table.
		span := 1 << (4 + (step/20_000)%14)
		k := r.IntN(span)
		if (step/20_000)%3 == 2 && len(model) > 0 && r.IntN(4) > 0 {
			for mk := range model { // release some key
				k = mk
				break
			}
		}
		h := tb.hash(k)
		i, ok := tb.lookup(h)
		want, inModel := model[k]
		if ok != inModel || (ok && i != want) {
			t.Fatalf("step %d: lookup(%d) = %d, %v; model %d, %v", step, k, i, ok, want, inModel)
		}
		if ok {
			if tb.at(i).key != k {
				t.Fatalf("step %d: slot %d holds %d, want %d", step, i, tb.at(i).key, k)
			}
			tb.release(i)
			delete(model, k)
		} else {
			if tb.full() {
				rebuild()
			}
			model[k] = tb.insert(h, stateQueued)
		}
		if tb.live != len(model) || tb.entries > len(tb.buckets)/2 {
			t.Fatalf("step %d: %d live in %d of %d buckets, model %d", step, tb.live, tb.entries, len(tb.buckets), len(model))
		}
	}
	for k, i := range model {
		if got, ok := tb.lookup(tb.hash(k)); !ok || got != i {
			t.Fatalf("lookup(%d) = %d, %v at the end; want %d", k, got, ok, i)
		}
	}
}

// A stale bucket may name a slot beyond the arena (after the table emptied
// and gave back chunks): a lookup that meets it with a matching tag skips
// it rather than reading past the arena.
func TestTableSkipsStaleBucketsBeyondTheArena(t *testing.T) {
	var tb table[string]
	tb.rebuild(func(func(uint32)) {})
	h := tb.hash("default/web")
	i := tb.insert(tb.hash("default/db"), stateQueued)
	tag := uint32(h.hash)
	home := tag & uint32(len(tb.buckets)-1)
	// Put the stale bucket at the key's home, moving whatever was there.
	if tb.buckets[home] != 0 {
		tb.buckets[(home+1)&uint32(len(tb.buckets)-1)] = tb.buckets[home]
	}
	tb.buckets[home] = uint64(tag)<<32 | uint64(1000*chunkLen+1)
	tb.entries++
	if _, ok := tb.lookup(h); ok {
		t.Fatal("lookup found a key through a stale bucket")
	}
	if got, ok := tb.lookup(tb.hash("default/db")); !ok || got != i {
		t.Fatalf("lookup(default/db) = %d, %v; want %d", got, ok, i)
	}
}
