package workqueue

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// step is one action on a queue in a scripted test.
type step struct {
	op  string // "add", "get", "done"
	key string
	// For "get": the key Get must return.
}

// run applies steps to q, failing t on a get that returns the wrong key.
// A get never blocks: it fails if the queue is empty.
func run(t *testing.T, q *Queue[string], steps []step) {
	t.Helper()
	for i, s := range steps {
		switch s.op {
		case "add":
			q.Add(s.key)
		case "done":
			q.Done(s.key)
		case "get":
			if q.Len() == 0 {
				t.Fatalf("step %d: get %q: queue is empty", i, s.key)
			}
			k, ok := q.Get(context.Background())
			if !ok || k != s.key {
				t.Fatalf("step %d: Get = %q, %v; want %q, true", i, k, ok, s.key)
			}
		default:
			t.Fatalf("step %d: unknown op %q", i, s.op)
		}
	}
}

func TestQueueGuarantees(t *testing.T) {
	tests := []struct {
		name    string
		steps   []step
		wantLen int
	}{
		{
			name:    "keys come out in the order they were first added",
			steps:   []step{{"add", "a"}, {"add", "b"}, {"add", "c"}, {"get", "a"}, {"get", "b"}, {"get", "c"}},
			wantLen: 0,
		},
		{
			name:    "a queued key added again is deduplicated and keeps its place",
			steps:   []step{{"add", "a"}, {"add", "b"}, {"add", "a"}, {"get", "a"}, {"get", "b"}},
			wantLen: 0,
		},
		{
			name:    "a key added while processing is not handed out before Done",
			steps:   []step{{"add", "a"}, {"get", "a"}, {"add", "a"}},
			wantLen: 0,
		},
		{
			name:    "a key added while processing runs again after Done, at the back",
			steps:   []step{{"add", "a"}, {"get", "a"}, {"add", "b"}, {"add", "a"}, {"add", "a"}, {"done", "a"}, {"get", "b"}, {"get", "a"}},
			wantLen: 0,
		},
		{
			name:    "a key not added again is gone after Done",
			steps:   []step{{"add", "a"}, {"get", "a"}, {"done", "a"}, {"add", "b"}, {"get", "b"}},
			wantLen: 0,
		},
		{
			name:    "Done for a key nobody holds does nothing",
			steps:   []step{{"done", "x"}, {"add", "a"}, {"done", "a"}, {"add", "a"}},
			wantLen: 1,
		},
		{
			name:    "a key processed before can be queued again",
			steps:   []step{{"add", "a"}, {"get", "a"}, {"done", "a"}, {"add", "a"}, {"add", "a"}, {"get", "a"}},
			wantLen: 0,
		},
		{
			name:    "Len counts only keys waiting for a worker",
			steps:   []step{{"add", "a"}, {"add", "b"}, {"get", "a"}, {"add", "a"}, {"add", "c"}},
			wantLen: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := New(Options[string]{})
			defer q.ShutDown()
			run(t, q, tt.steps)
			if got := q.Len(); got != tt.wantLen {
				t.Fatalf("Len = %d, want %d", got, tt.wantLen)
			}
		})
	}
}

// Deduplication must survive the key table growing and shrinking.
func TestQueueDeduplicatesAcrossResizes(t *testing.T) {
	q := New(Options[int]{})
	defer q.ShutDown()
	ctx := context.Background()
	const n = 3 * 4096
	for round := range 3 {
		for k := range n {
			q.Add(k)
		}
		// Take half, then add everything again: only the taken half
		// is marked to run again; the rest stays queued once.
		for want := range n / 2 {
			k, _ := q.Get(ctx)
			if k != want {
				t.Fatalf("round %d: Get = %d, want %d", round, k, want)
			}
		}
		for k := range n {
			q.Add(k)
		}
		if got := q.Len(); got != n/2 {
			t.Fatalf("round %d: Len = %d, want %d", round, got, n/2)
		}
		for k := range n / 2 {
			q.Done(k) // re-added while processing: back in the queue
		}
		seen := make(map[int]bool, n)
		for q.Len() > 0 {
			k, _ := q.Get(ctx)
			if seen[k] {
				t.Fatalf("round %d: key %d handed out twice", round, k)
			}
			seen[k] = true
			q.Done(k)
		}
		if len(seen) != n {
			t.Fatalf("round %d: %d keys came out, want %d", round, len(seen), n)
		}
		if q.keys.live != 0 || len(q.held) != 0 || q.keys.entries > len(q.keys.buckets)/2 {
			t.Fatalf("round %d: key table holds %d keys (%d held) in %d of %d buckets", round, q.keys.live, len(q.held), q.keys.entries, len(q.keys.buckets))
		}
	}
}

func TestQueueGivesBackTheMemoryOfABurst(t *testing.T) {
	q := New(Options[int]{})
	defer q.ShutDown()
	ctx := context.Background()
	const burst = 4 * keptChunks * chunkLen
	for k := range burst {
		q.Add(k)
	}
	for range burst {
		k, _ := q.Get(ctx)
		q.Done(k)
	}
	// The key table shrank back as the burst drained.
	if len(q.keys.buckets) > keptBuckets || len(q.keys.chunks) > keptChunks {
		t.Fatalf("key table still has %d buckets and %d chunks after the burst", len(q.keys.buckets), len(q.keys.chunks))
	}
	q.Add(1)
	q.Add(1)
	if q.Len() != 1 {
		t.Fatalf("Len = %d after the map was replaced", q.Len())
	}
}

func TestQueueGetBlocksUntilAKeyArrives(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		defer q.ShutDown()
		var got atomic.Value
		go func() {
			k, ok := q.Get(t.Context())
			if ok {
				got.Store(k)
			}
		}()
		synctest.Wait()
		if got.Load() != nil {
			t.Fatal("Get returned from an empty queue")
		}
		q.Add("a")
		synctest.Wait()
		if got.Load() != "a" {
			t.Fatalf("Get returned %v, want a", got.Load())
		}
		if q.Len() != 0 {
			t.Fatalf("Len = %d after hand-off, want 0", q.Len())
		}
		// The handed-off key is held: adding it again waits for Done.
		q.Add("a")
		if q.Len() != 0 {
			t.Fatalf("Len = %d after re-add of a held key, want 0", q.Len())
		}
		q.Done("a")
		if q.Len() != 1 {
			t.Fatalf("Len = %d after Done, want 1", q.Len())
		}
	})
}

func TestQueueGetEndsWithItsContext(t *testing.T) {
	tests := []struct {
		name string
		// cancelFirst cancels before Get is called, with a key queued.
		cancelFirst bool
	}{
		{name: "a waiting Get returns false when its context ends", cancelFirst: false},
		{name: "Get with an ended context returns false even with keys queued", cancelFirst: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := New(Options[string]{})
				defer q.ShutDown()
				ctx, cancel := context.WithCancel(t.Context())
				if tt.cancelFirst {
					q.Add("a")
					cancel()
					if k, ok := q.Get(ctx); ok {
						t.Fatalf("Get = %q, true; want false", k)
					}
					if q.Len() != 1 {
						t.Fatalf("Len = %d, want the key still queued", q.Len())
					}
					return
				}
				result := make(chan bool, 1)
				go func() {
					_, ok := q.Get(ctx)
					result <- ok
				}()
				synctest.Wait()
				cancel()
				if ok := <-result; ok {
					t.Fatal("Get returned ok after its context ended")
				}
				// The cancelled Get must not swallow the next key.
				q.Add("b")
				if q.Len() != 1 {
					t.Fatalf("Len = %d after Add, want 1", q.Len())
				}
			})
		})
	}
}

func TestQueueShutDown(t *testing.T) {
	tests := []struct {
		name  string
		check func(t *testing.T, q *Queue[string])
	}{
		{
			name: "a waiting Get returns false",
			check: func(t *testing.T, q *Queue[string]) {
				result := make(chan bool, 1)
				go func() {
					_, ok := q.Get(context.Background())
					result <- ok
				}()
				synctest.Wait()
				q.ShutDown()
				if <-result {
					t.Fatal("Get returned ok after ShutDown")
				}
			},
		},
		{
			name: "queued keys are dropped and Get returns false",
			check: func(t *testing.T, q *Queue[string]) {
				q.Add("a")
				q.ShutDown()
				if k, ok := q.Get(context.Background()); ok {
					t.Fatalf("Get = %q, true after ShutDown", k)
				}
				if q.Len() != 0 {
					t.Fatalf("Len = %d after ShutDown", q.Len())
				}
			},
		},
		{
			name: "Add is ignored",
			check: func(t *testing.T, q *Queue[string]) {
				q.ShutDown()
				q.Add("a")
				q.AddAfter("b", time.Second)
				q.AddRateLimited("c")
				if q.Len() != 0 {
					t.Fatalf("Len = %d", q.Len())
				}
			},
		},
		{
			name: "a held key may still be Done and is not run again",
			check: func(t *testing.T, q *Queue[string]) {
				q.Add("a")
				k, _ := q.Get(context.Background())
				q.Add("a") // re-add while processing
				q.ShutDown()
				q.Done(k)
				if q.Len() != 0 {
					t.Fatalf("Len = %d after Done", q.Len())
				}
			},
		},
		{
			name: "ShutDown may be called twice and ShuttingDown reports it",
			check: func(t *testing.T, q *Queue[string]) {
				if q.ShuttingDown() {
					t.Fatal("ShuttingDown before ShutDown")
				}
				q.ShutDown()
				q.ShutDown()
				if !q.ShuttingDown() {
					t.Fatal("not ShuttingDown after ShutDown")
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := New(Options[string]{})
				tt.check(t, q)
				q.ShutDown()
			})
		})
	}
}

func TestQueueShutDownAndWait(t *testing.T) {
	tests := []struct {
		name     string
		held     int           // keys a worker holds when the drain starts
		doneAt   time.Duration // when the worker calls Done; 0: never
		deadline time.Duration // drain context timeout
		wantErr  bool
	}{
		{name: "returns at once when nothing is held", held: 0, deadline: time.Second},
		{name: "waits for held keys to be Done", held: 2, doneAt: 3 * time.Second, deadline: time.Minute},
		{name: "gives up at the deadline with a DrainError", held: 2, deadline: 5 * time.Second, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := New(Options[int]{})
				for k := range tt.held {
					q.Add(k)
				}
				var held []int
				for range tt.held {
					k, _ := q.Get(context.Background())
					held = append(held, k)
				}
				q.Add(100) // queued, never handed out: must not delay the drain
				if tt.doneAt > 0 {
					go func() {
						time.Sleep(tt.doneAt) // fake time inside the bubble
						for _, k := range held {
							q.Done(k)
						}
					}()
				}
				ctx, cancel := context.WithTimeout(t.Context(), tt.deadline)
				defer cancel()
				start := time.Now()
				err := q.ShutDownAndWait(ctx)
				waited := time.Since(start)
				if !tt.wantErr {
					if err != nil {
						t.Fatalf("ShutDownAndWait = %v", err)
					}
					if waited != tt.doneAt {
						t.Fatalf("drain took %v, want %v", waited, tt.doneAt)
					}
					return
				}
				var de *DrainError
				if !errors.As(err, &de) || de.InFlight != tt.held || !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("ShutDownAndWait = %v; want a DrainError with %d in flight wrapping DeadlineExceeded", err, tt.held)
				}
				if want := "workqueue: drain stopped with 2 keys still in flight: context deadline exceeded"; err.Error() != want {
					t.Fatalf("error text %q, want %q", err, want)
				}
				if waited != tt.deadline {
					t.Fatalf("drain gave up after %v, want %v", waited, tt.deadline)
				}
			})
		})
	}
}

func TestQueueShutDownWithDrainWorksOffWhatWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[int]{})
		q.Add(1)
		q.Add(2)
		q.Add(3)
		k, _ := q.Get(context.Background())
		q.Add(k)                   // re-added while held: handed out again after Done
		q.AddAfter(7, time.Second) // waiting for a delay: dropped
		drained := make(chan error, 1)
		go func() { drained <- q.ShutDownWithDrain(t.Context()) }()
		synctest.Wait()
		q.Add(9) // after the call: ignored
		if !q.ShuttingDown() {
			t.Fatal("ShuttingDown is false during the drain")
		}
		var got []int
		for {
			k2, ok := q.Get(context.Background())
			if !ok {
				// The held key goes back in line at its Done.
				if k != 0 {
					q.Done(k)
					k = 0
					continue
				}
				break
			}
			got = append(got, k2)
			q.Done(k2)
		}
		if want := []int{2, 3, 1}; !slices.Equal(got, want) {
			t.Errorf("drain handed out %v, want %v", got, want)
		}
		synctest.Wait()
		select {
		case err := <-drained:
			if err != nil {
				t.Fatalf("ShutDownWithDrain = %v", err)
			}
		default:
			t.Fatal("ShutDownWithDrain still waiting with nothing held or waiting")
		}
	})
}

func TestQueueShutDownWithDrainGivesUpNamingWhatIsLeft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[int]{})
		q.Add(1)
		q.Add(2)
		q.Add(3)
		q.Get(context.Background()) // held, never Done
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		err := q.ShutDownWithDrain(ctx)
		var de *DrainError
		if !errors.As(err, &de) || de.InFlight != 1 || de.Waiting != 2 || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("ShutDownWithDrain = %v; want a DrainError with 1 in flight and 2 waiting", err)
		}
		if want := "workqueue: drain stopped with 1 keys in flight and 2 waiting: context deadline exceeded"; err.Error() != want {
			t.Errorf("error text %q, want %q", err, want)
		}
	})
}

func TestQueueShutDownAndWaitDropsWhatWaits(t *testing.T) {
	q := New(Options[int]{})
	q.Add(1)
	q.Add(2)
	if err := q.ShutDownAndWait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if k, ok := q.Get(context.Background()); ok {
		t.Fatalf("Get after ShutDownAndWait handed out %d", k)
	}
}

// Many producers and workers hammer a few keys. Workers fail the test if
// they ever hold the same key at once, and every key added after its last
// processing started must be processed again. The synctest bubble (real
// concurrency, fake time) fails the test if a goroutine is left behind.
func TestQueueNeverHandsOneKeyToTwoWorkers(t *testing.T) {
	synctest.Test(t, hammer)
}

func hammer(t *testing.T) {
	const (
		keys      = 8
		producers = 4
		workers   = 8
		adds      = 4000
	)
	q := New(Options[int]{})
	var (
		busy [keys]atomic.Int32
		// version[k] counts adds of k; seen[k] is the version a worker
		// saw when it last took k. After the drain they must match.
		version [keys]atomic.Int64
		seen    [keys]atomic.Int64
		wg      sync.WaitGroup
		pwg     sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for {
				k, ok := q.Get(context.Background())
				if !ok {
					return
				}
				if !busy[k].CompareAndSwap(0, 1) {
					t.Errorf("key %d handed to two workers at once", k)
				}
				seen[k].Store(version[k].Load())
				runtime.Gosched()
				busy[k].Store(0)
				q.Done(k)
			}
		})
	}
	for p := range producers {
		pwg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(p), 1))
			for range adds {
				k := r.IntN(keys)
				version[k].Add(1)
				q.Add(k)
			}
		})
	}
	pwg.Wait()
	// Wait until every key is idle, without sleeping: poll Len and the
	// in-flight count under the lock, yielding in between.
	for {
		q.mu.Lock()
		idle := q.ready.len() == 0 && len(q.held) == 0
		q.mu.Unlock()
		if idle {
			break
		}
		runtime.Gosched()
	}
	for k := range keys {
		if version[k].Load() > 0 && seen[k].Load() != version[k].Load() {
			t.Errorf("key %d: last processing saw version %d of %d", k, seen[k].Load(), version[k].Load())
		}
	}
	if err := q.ShutDownAndWait(context.Background()); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
}

// Gets that race with their own cancellation never lose a key: each added
// key is handed out exactly once.
func TestQueueCancelledGetsLoseNoKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[int]{})
		const n = 2000
		var got sync.Map
		var wg sync.WaitGroup
		for w := range 6 {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(w), 2))
				for {
					ctx, cancel := context.WithCancel(context.Background())
					if r.IntN(2) == 0 {
						go cancel()
					}
					k, ok := q.Get(ctx)
					cancel()
					if !ok {
						if q.ShuttingDown() {
							return
						}
						continue
					}
					if _, dup := got.LoadOrStore(k, true); dup {
						t.Errorf("key %d handed out twice", k)
					}
					q.Done(k)
				}
			})
		}
		for k := range n {
			q.Add(k)
			if k%50 == 0 {
				synctest.Wait()
			}
		}
		synctest.Wait()
		for k := range n {
			if _, ok := got.Load(k); !ok {
				// Still queued? Then a Get must take it eventually.
				t.Errorf("key %d never handed out (Len %d)", k, q.Len())
			}
		}
		q.ShutDown()
		wg.Wait()
	})
}

func TestQueueMetricsAreOptionalAndFree(t *testing.T) {
	q := New(Options[int]{})
	defer q.ShutDown()
	ctx := context.Background()
	for k := range 1000 { // warm up maps and blocks
		q.Add(k)
	}
	for range 1000 {
		k, _ := q.Get(ctx)
		q.Done(k)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		q.Add(1)
		k, _ := q.Get(ctx)
		q.Forget(k)
		q.Done(k)
	})
	if allocs != 0 {
		t.Fatalf("Add/Get/Forget/Done allocated %v times per cycle, want 0", allocs)
	}
}

// Struct keys, as controllers use, cost no allocation per cycle either: the
// hashing done before taking the lock does not move the key to the heap.
func TestQueueStructKeysAllocateNothing(t *testing.T) {
	type key struct{ Namespace, Name string }
	q := New(Options[key]{})
	defer q.ShutDown()
	ctx := context.Background()
	k := key{"default", "web"}
	allocs := testing.AllocsPerRun(1000, func() {
		q.Add(k)
		got, _ := q.Get(ctx)
		q.Forget(got)
		q.Done(got)
	})
	if allocs != 0 {
		t.Fatalf("Add/Get/Forget/Done allocated %v times per cycle, want 0", allocs)
	}
}
