package workqueue

import "testing"

func TestFIFOKeepsOrderAcrossBlocks(t *testing.T) {
	for _, n := range []int{0, 1, blockLen - 1, blockLen, blockLen + 1, 5*blockLen + 3} {
		var f fifo[int]
		next, want := 0, 0
		// Interleave pushes and pops so the head and tail cross blocks
		// at different offsets.
		for want < n {
			for range 3 {
				if next < n {
					f.push(next)
					next++
				}
			}
			if got := f.pop(); got != want {
				t.Fatalf("n=%d: pop = %d, want %d", n, got, want)
			}
			want++
			if f.len() != next-want {
				t.Fatalf("n=%d: len = %d, want %d", n, f.len(), next-want)
			}
		}
		if f.len() != 0 {
			t.Fatalf("n=%d: len = %d at the end", n, f.len())
		}
	}
}

func TestFIFOEachVisitsOldestFirst(t *testing.T) {
	var f fifo[int]
	for i := range 3 * blockLen {
		f.push(i)
	}
	for range blockLen + 7 {
		f.pop()
	}
	want := blockLen + 7
	f.each(func(k int) {
		if k != want {
			t.Fatalf("each gave %d, want %d", k, want)
		}
		want++
	})
	if want != 3*blockLen {
		t.Fatalf("each stopped at %d, want %d", want, 3*blockLen)
	}
}

func TestFIFOReusesItsBlockInSteadyState(t *testing.T) {
	var f fifo[int]
	allocs := testing.AllocsPerRun(100, func() {
		for i := range 4 * blockLen {
			f.push(i)
			f.pop()
		}
	})
	if allocs != 0 {
		t.Fatalf("push/pop at depth 1 allocated %v times per run, want 0", allocs)
	}
}

func TestFIFOReusesBlocksWhenDepthSwings(t *testing.T) {
	var f fifo[int]
	swing := func() {
		for i := range maxSpares * blockLen {
			f.push(i)
		}
		for range maxSpares * blockLen {
			f.pop()
		}
	}
	swing() // allocate the blocks once
	if allocs := testing.AllocsPerRun(20, swing); allocs != 0 {
		t.Fatalf("a swing of %d keys allocated %v times, want 0", maxSpares*blockLen, allocs)
	}
	if f.nspares > maxSpares {
		t.Fatalf("%d spare blocks kept, want at most %d", f.nspares, maxSpares)
	}
}

func TestFIFOClearDropsEverything(t *testing.T) {
	var f fifo[string]
	for range 2 * blockLen {
		f.push("k")
	}
	f.clear()
	if f.len() != 0 || f.head != nil || f.spares != nil {
		t.Fatalf("after clear: len %d, head %v, spares %v", f.len(), f.head, f.spares)
	}
	f.push("again")
	if got := f.pop(); got != "again" {
		t.Fatalf("pop after clear = %q", got)
	}
}
