package workqueue

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func benchKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("namespace-%03d/object-%07d", i%500, i)
	}
	return keys
}

// One goroutine cycles keys through Add, Get, Forget and Done at a small
// depth: the cost of the bookkeeping without contention.
func BenchmarkAddGetDone(b *testing.B) {
	keys := benchKeys(1024)
	q := New(Options[string]{})
	defer q.ShutDown()
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q.Add(keys[i%len(keys)])
		k, _ := q.Get(ctx)
		q.Forget(k)
		q.Done(k)
		i++
	}
}

// Adds of a key that is already queued: the deduplication fast path.
func BenchmarkAddDeduplicated(b *testing.B) {
	q := New(Options[string]{})
	defer q.ShutDown()
	q.Add("default/web")
	b.ReportAllocs()
	for b.Loop() {
		q.Add("default/web")
	}
}

// Each goroutine adds, takes and finishes keys, all contending on the queue.
// Each has keys of its own: a key two goroutines added while it waited
// would be queued once and leave one of them parked in Get at the end.
func BenchmarkParallelAddGetDone(b *testing.B) {
	const perGoroutine = 512
	q := New(Options[string]{})
	defer q.ShutDown()
	var next atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		id := int(next.Add(1)) - 1
		keys := benchKeys(perGoroutine * (id + 1))[perGoroutine*id:]
		i := 0
		for pb.Next() {
			q.Add(keys[i%len(keys)])
			k, _ := q.Get(ctx)
			q.Forget(k)
			q.Done(k)
			i++
		}
	})
}

// The bench's workqueue scenario (the workqueue row of `make bench`) at a size fit for a benchmark loop: 4
// producers add distinct keys, 8 workers process them. One op is one key.
func BenchmarkProducersWorkers(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			keys := benchKeys(n)
			b.ReportAllocs()
			b.SetBytes(0)
			for b.Loop() {
				producersWorkers(keys, 4, 8)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/key")
		})
	}
}

func producersWorkers(keys []string, producers, workers int) {
	q := New(Options[string]{})
	var processed atomic.Int64
	all := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			ctx := context.Background()
			for {
				k, ok := q.Get(ctx)
				if !ok {
					return
				}
				q.Forget(k)
				q.Done(k)
				if processed.Add(1) == int64(len(keys)) {
					close(all)
				}
			}
		})
	}
	per := (len(keys) + producers - 1) / producers
	for p := range producers {
		part := keys[min(p*per, len(keys)):min((p+1)*per, len(keys))]
		wg.Go(func() {
			for _, k := range part {
				q.Add(k)
			}
		})
	}
	<-all
	q.ShutDown()
	wg.Wait()
}

// AddAfter with distinct keys and spread delays: heap and timer upkeep.
func BenchmarkAddAfter(b *testing.B) {
	keys := benchKeys(4096)
	clock := newFakeClock()
	q := New(Options[string]{Clock: clock})
	defer q.ShutDown()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q.AddAfter(keys[i%len(keys)], time.Duration(1+i%997)*time.Millisecond)
		i++
		if i%len(keys) == 0 {
			clock.Advance(time.Second)
			for q.Len() > 0 {
				k, _ := q.Get(context.Background())
				q.Done(k)
			}
		}
	}
}

// nopMetrics is a Metrics that drops every event.
type nopMetrics struct{}

func (nopMetrics) Added()                 {}
func (nopMetrics) Depth(int)              {}
func (nopMetrics) Started(time.Duration)  {}
func (nopMetrics) Finished(time.Duration) {}
func (nopMetrics) Retried()               {}
func (nopMetrics) Attach(func() InFlight) {}

// benchRequest is a key the shape of a controller's request: namespace,
// name and cluster.
type benchRequest struct{ namespace, name, cluster string }

// The heap a queue holds per waiting key (B/key), with and without
// metrics: 5,000 keys added, none taken yet, as at the start of a
// controller's initial burst. The keys' strings are not counted.
func BenchmarkHeldPerKey(b *testing.B) {
	const n = 5000
	keys := make([]benchRequest, n)
	for i := range keys {
		keys[i] = benchRequest{fmt.Sprintf("namespace-%03d", i%50), fmt.Sprintf("object-%07d", i), ""}
	}
	for _, bc := range []struct {
		name    string
		metrics Metrics
	}{{"metrics", nopMetrics{}}, {"none", nil}} {
		b.Run(bc.name, func(b *testing.B) {
			var held int64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				q := New(Options[benchRequest]{Metrics: bc.metrics})
				for _, k := range keys {
					q.Add(k)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				held = int64(after.HeapAlloc) - int64(before.HeapAlloc)
				if q.Len() != n {
					b.Fatalf("Len = %d, want %d", q.Len(), n)
				}
				q.ShutDown()
			}
			b.ReportMetric(float64(held)/n, "B/key")
		})
	}
}
