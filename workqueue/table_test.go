package workqueue

import (
	"math/rand/v2"
	"testing"
)

// The key table agrees with a Go map through random inserts and removes,
// across growth, shrinking and emptying, including the zero key.
func TestTableAgreesWithAMap(t *testing.T) {
	var tb table[int]
	model := map[int]uint32{} // key → slot
	r := rand.New(rand.NewPCG(1, 2))
	for step := range 400_000 {
		// Phases: grow to many keys, drain, and churn in between.
		span := 1 << (4 + (step/20_000)%14)
		k := r.IntN(span)
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
			tb.remove(h, i)
			delete(model, k)
		} else {
			model[k] = tb.insert(h, stateQueued)
		}
		if tb.count != len(model) {
			t.Fatalf("step %d: count %d, model %d", step, tb.count, len(model))
		}
	}
	for k, i := range model {
		if got, ok := tb.lookup(tb.hash(k)); !ok || got != i {
			t.Fatalf("lookup(%d) = %d, %v at the end; want %d", k, got, ok, i)
		}
	}
}
