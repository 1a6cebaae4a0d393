package workqueue

import (
	"context"
	"testing"
)

// FuzzQueueAgainstModel drives a queue with an arbitrary sequence of
// operations on one goroutine and checks it against a model of the
// guarantees: the ready keys form the same set, Get hands out only ready
// keys, and no add is lost. An odd first operation runs the queue with
// lanes, under which the same guarantees hold.
func FuzzQueueAgainstModel(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{0, 0, 2, 0, 3, 0, 4, 2, 3, 5})
	f.Add([]byte{7, 0, 7, 2, 7, 5, 1, 0, 2, 1, 3})
	f.Add([]byte{6, 6, 6, 2, 2, 0, 0, 3, 3, 6})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var opts Options[int]
		if len(ops) > 0 && ops[0]%2 == 1 {
			opts.Lane = func(k int) string { return string(rune('a' + k%3)) }
		}
		q := New(opts)
		defer q.ShutDown()
		ctx := context.Background()
		ready := map[int]bool{}    // model: keys waiting for a worker
		inflight := map[int]bool{} // model: held keys → added again
		add := func(k int) {
			q.Add(k)
			switch _, held := inflight[k]; {
			case ready[k]:
			case held:
				inflight[k] = true
			default:
				ready[k] = true
			}
		}
		get := func() {
			if q.Len() == 0 {
				return
			}
			k, ok := q.Get(ctx)
			if !ok || !ready[k] {
				t.Fatalf("Get = %d, %v; ready keys %v", k, ok, ready)
			}
			delete(ready, k)
			inflight[k] = false
		}
		done := func(k int) {
			q.Done(k)
			if again, held := inflight[k]; held {
				delete(inflight, k)
				if again {
					ready[k] = true
				}
			}
		}
		next := 1000 // fresh keys for bursts
		for i := 0; i+1 < len(ops); i += 2 {
			k := int(ops[i+1] % 16)
			switch ops[i] % 8 {
			case 0, 1:
				add(k)
			case 2, 3:
				get()
			case 4, 5:
				done(k)
			case 6:
				// A burst of fresh keys taken and finished: the key table
				// grows and shrinks.
				for j := range 4096 + int(ops[i+1])*64 {
					add(next + j)
				}
				for range 4096 + int(ops[i+1])*64 {
					get()
				}
				for j := range 4096 + int(ops[i+1])*64 {
					done(next + j)
				}
				next += 4096 + 256*64
			case 7:
				// Finish every held key.
				for h := range inflight {
					done(h)
				}
			}
			if q.Len() != len(ready) {
				t.Fatalf("op %d: Len = %d, model has %d ready", i/2, q.Len(), len(ready))
			}
		}
		// No add is lost: draining yields every key the model owes.
		for h := range inflight {
			done(h)
		}
		for q.Len() > 0 {
			get()
			for h := range inflight {
				done(h)
			}
		}
		if len(ready) != 0 || len(inflight) != 0 {
			t.Fatalf("after draining, the model still owes %v ready, %v held", ready, inflight)
		}
	})
}
