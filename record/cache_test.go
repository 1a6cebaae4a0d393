package record

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestSeriesCacheFindsAndEvictsInRecencyOrder(t *testing.T) {
	for _, tc := range []struct {
		name   string
		hashOf func(seriesKey) uint64
	}{
		{"seeded hash", nil},
		{"every key colliding", func(seriesKey) uint64 { return 7 }},
		{"keys colliding in pairs", func(k seriesKey) uint64 { return uint64(len(k.note) / 4) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newSeriesCache()
			c.hashOf = tc.hashOf
			key := func(i int) seriesKey { return seriesKey{reason: "R", note: fmt.Sprint(make([]byte, i))} }
			var model []*series // most recently seen first
			rng := rand.New(rand.NewPCG(1, 2))
			for step := range 2000 {
				i := rng.IntN(40)
				s := c.get(key(i))
				switch at := indexOf(model, key(i)); {
				case (s == nil) != (at < 0):
					t.Fatalf("step %d: get(%d) = %v, model has it at %d", step, i, s, at)
				case s == nil:
					s = &series{key: key(i)}
					c.add(s)
					model = append([]*series{s}, model...)
				case rng.IntN(3) == 0:
					c.remove(s)
					model = append(model[:at], model[at+1:]...)
				default:
					c.touch(s)
					model = append([]*series{s}, append(model[:at:at], model[at+1:]...)...)
				}
				if len(model) > 25 {
					old := c.oldest()
					if old != model[len(model)-1] {
						t.Fatalf("step %d: oldest %q, want %q", step, old.key.note, model[len(model)-1].key.note)
					}
					c.remove(old)
					model = model[:len(model)-1]
				}
				if c.len() != len(model) {
					t.Fatalf("step %d: len %d, want %d", step, c.len(), len(model))
				}
			}
			for s, i := c.head, 0; s != nil; s, i = s.next, i+1 {
				if model[i] != s {
					t.Fatalf("recency order differs at %d", i)
				}
			}
		})
	}
}

func indexOf(ss []*series, k seriesKey) int {
	for i, s := range ss {
		if s.key == k {
			return i
		}
	}
	return -1
}
