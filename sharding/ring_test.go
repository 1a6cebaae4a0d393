package sharding

import (
	"fmt"
	"hash/fnv"
	"math"
	"testing"
)

func keys(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("ConfigMap./ns-%d/cm-%d", i%7, i)
	}
	return out
}

func members(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("replica-%d", i)
	}
	return out
}

// Each of N members owns about 1/N of the keys.
func TestRingSpreadsKeysEvenly(t *testing.T) {
	ks := keys(30000)
	for _, n := range []int{1, 2, 3, 4, 5, 8} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			r := NewRing(members(n), RingOptions{})
			count := map[string]int{}
			for _, k := range ks {
				count[r.Owner(k)]++
			}
			if len(count) != n {
				t.Fatalf("%d members own keys, want %d", len(count), n)
			}
			want := float64(len(ks)) / float64(n)
			for m, c := range count {
				if dev := math.Abs(float64(c)-want) / want; dev > 0.15 {
					t.Errorf("%s owns %d keys, %.0f%% off the fair %.0f", m, c, 100*dev, want)
				}
			}
		})
	}
}

// Adding or removing one of N members moves about 1/N of the keys (never
// more than 1.3/N), and only to or from that member.
func TestRingMovesAboutOneNthOnMembershipChange(t *testing.T) {
	ks := keys(30000)
	for _, n := range []int{2, 3, 4, 5, 8} {
		t.Run(fmt.Sprintf("add the %dth", n), func(t *testing.T) {
			before := NewRing(members(n-1), RingOptions{})
			after := NewRing(members(n), RingOptions{})
			added := members(n)[n-1]
			moved := 0
			for _, k := range ks {
				b, a := before.Owner(k), after.Owner(k)
				if b != a {
					moved++
					if a != added {
						t.Fatalf("%s moved from %s to %s, not to the added member", k, b, a)
					}
				}
			}
			checkMoved(t, moved, len(ks), n)
		})
		t.Run(fmt.Sprintf("remove one of %d", n), func(t *testing.T) {
			all := members(n)
			gone := all[1]
			rest := append(append([]string(nil), all[:1]...), all[2:]...)
			before := NewRing(all, RingOptions{})
			after := NewRing(rest, RingOptions{})
			moved := 0
			for _, k := range ks {
				b, a := before.Owner(k), after.Owner(k)
				if b != a {
					moved++
					if b != gone {
						t.Fatalf("%s moved from %s, which stayed", k, b)
					}
				}
			}
			checkMoved(t, moved, len(ks), n)
		})
	}
}

func checkMoved(t *testing.T, moved, total, n int) {
	t.Helper()
	frac := float64(moved) / float64(total)
	if ideal := 1 / float64(n); frac > 1.3*ideal || frac < 0.7*ideal {
		t.Errorf("%.3f of the keys moved, want about 1/%d = %.3f", frac, n, ideal)
	}
}

// The ring depends on the set of members only: order and duplicates do
// not matter, and an empty ring owns nothing.
func TestRingIsTheSameForTheSameMembers(t *testing.T) {
	a := NewRing([]string{"c", "a", "b"}, RingOptions{})
	b := NewRing([]string{"b", "c", "a", "a", ""}, RingOptions{})
	for _, k := range keys(2000) {
		if a.Owner(k) != b.Owner(k) {
			t.Fatalf("%s: %s vs %s", k, a.Owner(k), b.Owner(k))
		}
	}
	if got := b.Members(); len(got) != 3 || !b.Has("a") || b.Has("") {
		t.Fatalf("members %v", got)
	}
	if o := NewRing(nil, RingOptions{}).Owner("x"); o != "" {
		t.Fatalf("empty ring owner %q", o)
	}
}

func BenchmarkRingOwner(b *testing.B) {
	r := NewRing(members(8), RingOptions{})
	ks := keys(1024)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = r.Owner(ks[i%len(ks)])
	}
}

// hashString is FNV-1a (as hash/fnv computes it) then fmix64.
func TestHashStringIsFNV1aThenFmix(t *testing.T) {
	for _, s := range []string{"", "a", "ConfigMap./ns/cm-1", "replica-0#511"} {
		h := fnv.New64a()
		h.Write([]byte(s))
		x := h.Sum64()
		x ^= x >> 33
		x *= 0xff51afd7ed558ccd
		x ^= x >> 33
		x *= 0xc4ceb9fe1a85ec53
		x ^= x >> 33
		if got := hashString(s); got != x {
			t.Errorf("hashString(%q) = %x, want %x", s, got, x)
		}
	}
}
