package informer

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// churnCM returns version rv of ConfigMap i: one data value whose size
// (1–8 KiB) and content follow from the name and rv, so that a reader can
// tell a decoded object is whole.
func churnCM(i, rv int) *corev1.ConfigMap {
	c := cm("ns-"+strconv.Itoa(i%7), fmt.Sprintf("obj-%04d", i), strconv.Itoa(rv), "app", "a"+strconv.Itoa(i%3))
	c.Data = map[string]string{"v": churnValue(c.Name, c.ResourceVersion)}
	return c
}

func churnValue(name, rv string) string {
	n, _ := strconv.Atoi(rv)
	size := 1024 + (n*7919)%(7*1024)
	unit := name + "@" + rv + ";"
	return strings.Repeat(unit, size/len(unit)+1)[:size]
}

// whole reports whether o is a complete decoding of the version it names.
func whole(o *corev1.ConfigMap) bool {
	return o != nil && o.Data["v"] == churnValue(o.Name, o.ResourceVersion)
}

// arenaState checks that the published view refers to no chunk the arena
// let go, and returns the bytes of encodings stored and of chunks held.
func arenaState(t *testing.T, s *cacheStore[*corev1.ConfigMap]) (live, held int) {
	t.Helper()
	a := &s.pack.ar
	a.mu.Lock()
	defer a.mu.Unlock()
	tracked := map[*chunk]bool{}
	for _, c := range a.chunks {
		tracked[c] = true
		held += len(c.buf)
	}
	s.cur.Load().each(func(sh *shard[*corev1.ConfigMap]) {
		for i := range sh.items {
			pk := sh.items[i].e.pk
			live += int(pk.n)
			switch {
			case pk.c.solo:
				held += len(pk.c.buf)
			case pk.c.retired || !tracked[pk.c]:
				t.Errorf("%s is stored in a chunk the arena let go", sh.items[i].key())
			}
		}
	})
	return live, held
}

func TestCompactChurnKeepsChunksWithinABoundOfTheLiveSet(t *testing.T) {
	const n = 400
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := newStore(map[string]IndexFunc[*corev1.ConfigMap]{"app": byApp}, nil, newPacker[*corev1.ConfigMap]())
	items := make([]*corev1.ConfigMap, n)
	for i := range items {
		items[i] = churnCM(i, i+1)
	}
	s.replace(items, true)
	s.settle()
	rv := n
	r := rand.New(rand.NewPCG(7, 7))
	maxRatio := 0.0
	for round := range 10 {
		// Ten rounds of ten times the population: updates, deletes and
		// objects coming back.
		for range 10 * n {
			i := r.IntN(n)
			rv++
			switch k := (Key{"ns-" + strconv.Itoa(i%7), fmt.Sprintf("obj-%04d", i)}); {
			case r.IntN(10) == 0:
				s.remove(k)
			default:
				s.put(churnCM(i, rv))
			}
		}
		live, held := arenaState(t, s)
		ratio := float64(held) / float64(live)
		maxRatio = max(maxRatio, ratio)
		// Chunks less than five sixths held are let go once a sixteenth
		// of the live bytes has been written since the last count, and up
		// to four chunks are being filled.
		if bound := live*3/2 + filling*chunkMax; held > bound {
			t.Fatalf("round %d: chunks hold %d bytes for %d stored, over %d", round, held, live, bound)
		}
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		heap := int64(ms.HeapAlloc) - int64(before.HeapAlloc)
		if bound := int64(3*live + 4<<20); heap > bound {
			t.Fatalf("round %d: live heap grew by %d bytes for %d stored, over %d", round, heap, live, bound)
		}
		for o := range s.All(nil) {
			if !whole(o) {
				t.Fatalf("round %d: %s decoded wrong after moves", round, KeyOf(o))
			}
		}
	}
	t.Logf("largest ratio of chunk bytes to stored bytes: %.2f; chunks let go: %d", maxRatio, s.pack.ar.gone)
	if s.pack.ar.gone == 0 {
		t.Fatal("churn let no chunk go: the moves were not exercised")
	}
	runtime.KeepAlive(s)
}

func TestCompactReadersDuringMovesSeeWholeObjects(t *testing.T) {
	const n = 200
	s := newStore[*corev1.ConfigMap](nil, nil, newPacker[*corev1.ConfigMap]())
	items := make([]*corev1.ConfigMap, n)
	for i := range items {
		items[i] = churnCM(i, i+1)
	}
	s.replace(items, true)
	var stop atomic.Bool
	var bad atomic.Int64
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			// Objects kept across moves: their strings view chunks the
			// store may have let go since, which must not have changed.
			var kept []*corev1.ConfigMap
			for !stop.Load() {
				i := r.IntN(n)
				o, ok := s.Get(Key{"ns-" + strconv.Itoa(i%7), fmt.Sprintf("obj-%04d", i)})
				if ok && !whole(o) {
					bad.Add(1)
				}
				if ok && len(kept) < 64 {
					kept = append(kept, o)
				}
				if g == 0 {
					for _, o := range s.List(nil) {
						if !whole(o) {
							bad.Add(1)
						}
					}
				}
				for _, o := range kept {
					if !whole(o) {
						bad.Add(1)
					}
				}
				if len(kept) == 64 && r.IntN(8) == 0 {
					kept = kept[:0]
				}
			}
		})
	}
	rv := n
	r := rand.New(rand.NewPCG(9, 9))
	for range 30 * n {
		rv++
		s.put(churnCM(r.IntN(n), rv))
	}
	stop.Store(true)
	wg.Wait()
	if bad.Load() != 0 {
		t.Fatalf("%d reads decoded an object that was not whole", bad.Load())
	}
	if s.pack.ar.gone == 0 {
		t.Fatal("no chunk was let go while readers read")
	}
	arenaState(t, s)
}

func TestCompactSettleSealsTheChunksBeingFilled(t *testing.T) {
	s := newStore[*corev1.ConfigMap](nil, nil, newPacker[*corev1.ConfigMap]())
	items := make([]*corev1.ConfigMap, 50)
	for i := range items {
		items[i] = churnCM(i, i+1)
	}
	s.replace(items, true)
	s.settle()
	live, held := arenaState(t, s)
	for _, c := range s.pack.ar.fill {
		if (len(c.buf)-c.used)*sealSlack > len(c.buf) {
			t.Errorf("a chunk being filled has %d of %d bytes unused after settle", len(c.buf)-c.used, len(c.buf))
		}
	}
	if held > live+live/8 {
		t.Fatalf("after settle chunks hold %d bytes for %d stored", held, live)
	}
	for _, it := range items {
		if o, ok := s.Get(KeyOf(it)); !ok || !whole(o) {
			t.Fatalf("%s lost by settle", KeyOf(it))
		}
	}
}

func TestCompactStandInWhoseChunkWasLetGoIsStoredFromACopy(t *testing.T) {
	s := newStore[*corev1.ConfigMap](nil, nil, newPacker[*corev1.ConfigMap]())
	stub := s.prepack(churnCM(3, 1000), prepared{})
	held := s.pending[any(stub)].pk
	s.settle() // the chunk being filled holds nothing stored: let go
	if !held.c.retired {
		t.Fatal("settle kept a chunk being filled that holds nothing stored")
	}
	s.put(stub)
	arenaState(t, s)
	if o, _ := s.Get(KeyOf(stub)); !whole(o) || o.ResourceVersion != "1000" {
		t.Fatalf("stand-in stored as %v", o.ObjectMeta)
	}
}
