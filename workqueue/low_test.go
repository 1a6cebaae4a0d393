package workqueue

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// runLow is run with one more op: "low" adds the key with AddLow.
func runLow(t *testing.T, q *Queue[string], steps []step) {
	t.Helper()
	for i, s := range steps {
		if s.op == "low" {
			q.AddLow(s.key)
			continue
		}
		run(t, q, steps[i:i+1])
	}
}

func TestQueuePriority(t *testing.T) {
	tests := []struct {
		name    string
		steps   []step
		wantLen int
	}{
		{
			name:  "a normal key comes out before low ones added earlier",
			steps: []step{{"low", "a"}, {"low", "b"}, {"add", "c"}, {"get", "c"}, {"get", "a"}, {"get", "b"}},
		},
		{
			name:  "low keys come out first in, first out",
			steps: []step{{"low", "a"}, {"low", "b"}, {"low", "c"}, {"get", "a"}, {"get", "b"}, {"get", "c"}},
		},
		{
			name:  "an Add of a low key moves it to the back of the normal line",
			steps: []step{{"low", "a"}, {"low", "b"}, {"add", "x"}, {"add", "b"}, {"get", "x"}, {"get", "b"}, {"get", "a"}},
		},
		{
			name:    "a promoted key waits once",
			steps:   []step{{"low", "a"}, {"add", "a"}, {"add", "a"}, {"low", "a"}},
			wantLen: 1,
		},
		{
			name:  "an AddLow of a normal key changes nothing",
			steps: []step{{"add", "a"}, {"add", "b"}, {"low", "a"}, {"get", "a"}, {"get", "b"}},
		},
		{
			name:    "a low key added twice waits once",
			steps:   []step{{"low", "a"}, {"low", "a"}, {"low", "b"}},
			wantLen: 2,
		},
		{
			name:    "a held key added low is not handed out before Done",
			steps:   []step{{"low", "a"}, {"get", "a"}, {"low", "a"}},
			wantLen: 0,
		},
		{
			name:  "a held key added low runs again after Done, at normal priority",
			steps: []step{{"add", "a"}, {"get", "a"}, {"low", "b"}, {"low", "a"}, {"done", "a"}, {"get", "a"}, {"get", "b"}},
		},
		{
			name:  "a key taken from the low line can be added again at either priority",
			steps: []step{{"low", "a"}, {"get", "a"}, {"done", "a"}, {"low", "a"}, {"get", "a"}, {"done", "a"}, {"add", "a"}, {"get", "a"}},
		},
		{
			name:  "a stale low entry is not handed out for a key re-added later",
			steps: []step{{"low", "a"}, {"low", "b"}, {"add", "a"}, {"get", "a"}, {"done", "a"}, {"low", "a"}, {"get", "b"}, {"get", "a"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := New(Options[string]{})
			defer q.ShutDown()
			runLow(t, q, tt.steps)
			if got := q.Len(); got != tt.wantLen {
				t.Fatalf("Len = %d, want %d", got, tt.wantLen)
			}
		})
	}
}

// FuzzQueuePriorityAgainstModel drives a queue with Add, AddLow, Get and
// Done on one goroutine and checks every key Get returns, in order,
// against a model of two first-in first-out lines.
func FuzzQueuePriorityAgainstModel(f *testing.F) {
	f.Add([]byte{1, 1, 1, 2, 0, 2, 2, 0, 2, 0, 3, 2, 3, 1})
	f.Add([]byte{1, 0, 1, 1, 0, 1, 2, 0, 3, 1, 1, 1, 2, 0, 2, 0})
	f.Add([]byte{1, 5, 1, 6, 1, 7, 2, 0, 0, 6, 3, 5, 1, 5, 2, 0, 2, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		q := New(Options[int]{})
		defer q.ShutDown()
		var high, low []int
		held := map[int]bool{} // held key → added again
		for i := 0; i+1 < len(ops); i += 2 {
			k := int(ops[i+1] % 8)
			switch ops[i] % 4 {
			case 0: // Add
				q.Add(k)
				switch _, isHeld := held[k]; {
				case slices.Contains(high, k):
				case isHeld:
					held[k] = true
				case slices.Contains(low, k):
					low = slices.DeleteFunc(low, func(x int) bool { return x == k })
					high = append(high, k)
				default:
					high = append(high, k)
				}
			case 1: // AddLow
				q.AddLow(k)
				switch _, isHeld := held[k]; {
				case slices.Contains(high, k), slices.Contains(low, k):
				case isHeld:
					held[k] = true
				default:
					low = append(low, k)
				}
			case 2: // Get
				if len(high)+len(low) == 0 {
					continue
				}
				var want int
				if len(high) > 0 {
					want, high = high[0], high[1:]
				} else {
					want, low = low[0], low[1:]
				}
				got, ok := q.Get(context.Background())
				if !ok || got != want {
					t.Fatalf("op %d: Get = %d, %v; want %d (normal %v, low %v)", i/2, got, ok, want, high, low)
				}
				held[got] = false
			case 3: // Done
				q.Done(k)
				if again, isHeld := held[k]; isHeld {
					delete(held, k)
					if again {
						high = append(high, k)
					}
				}
			}
			if got := q.Len(); got != len(high)+len(low) {
				t.Fatalf("op %d: Len = %d, model has %d", i/2, got, len(high)+len(low))
			}
		}
	})
}

func TestQueuePriorityHandsALowKeyToAParkedGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		defer q.ShutDown()
		got := make(chan string)
		go func() {
			k, _ := q.Get(t.Context())
			got <- k
		}()
		synctest.Wait() // the Get is parked
		q.AddLow("a")
		if k := <-got; k != "a" {
			t.Fatalf("Get = %q, want a", k)
		}
		q.Add("b") // the intake works again after the hand-over
		if k, ok := q.Get(t.Context()); !ok || k != "b" {
			t.Fatalf("Get = %q, %v", k, ok)
		}
	})
}

func TestQueuePriorityShutDown(t *testing.T) {
	t.Run("ShutDown drops the low keys", func(t *testing.T) {
		q := New(Options[string]{})
		q.AddLow("a")
		q.ShutDown()
		if _, ok := q.Get(context.Background()); ok || q.Len() != 0 {
			t.Fatalf("a low key survived ShutDown (Len %d)", q.Len())
		}
		q.AddLow("b")
		if q.Len() != 0 {
			t.Fatal("AddLow after ShutDown queued a key")
		}
	})
	t.Run("ShutDownWithDrain hands them out after the others", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q := New(Options[string]{})
			q.AddLow("low")
			q.Add("high")
			var got []string
			var wg sync.WaitGroup
			wg.Go(func() {
				for {
					k, ok := q.Get(context.Background())
					if !ok {
						return
					}
					got = append(got, k)
					q.Done(k)
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := q.ShutDownWithDrain(ctx); err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			if !slices.Equal(got, []string{"high", "low"}) {
				t.Fatalf("drained %v, want [high low]", got)
			}
		})
	})
}

// Concurrent adds at both priorities never hand one key to two workers,
// and every key added is processed.
func TestQueuePriorityNeverHandsOneKeyToTwoWorkers(t *testing.T) {
	q := New(Options[int]{})
	const keys, workers, producers, adds = 64, 8, 4, 4000
	var mu sync.Mutex
	holding := map[int]bool{}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				k, ok := q.Get(context.Background())
				if !ok {
					return
				}
				mu.Lock()
				if holding[k] {
					mu.Unlock()
					t.Errorf("key %d handed to two workers", k)
					return
				}
				holding[k] = true
				mu.Unlock()
				mu.Lock()
				delete(holding, k)
				mu.Unlock()
				q.Done(k)
			}
		})
	}
	var pg sync.WaitGroup
	for p := range producers {
		pg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(p), 1))
			for range adds {
				k := r.IntN(keys)
				if r.IntN(2) == 0 {
					q.AddLow(k)
				} else {
					q.Add(k)
				}
			}
		})
	}
	pg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := q.ShutDownWithDrain(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if q.Len() != 0 {
		t.Fatalf("Len = %d after the drain", q.Len())
	}
}
