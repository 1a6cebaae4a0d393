package controller

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubego/kubego/informer"
)

// BenchmarkLoop measures the controller's own cost per Request: event
// handler, queue, worker and bookkeeping, with a Reconciler that does
// nothing, over an in-memory source of b.N ConfigMaps, 4 workers; with no
// metrics, and with a Prometheus registry (as a Manager has).
func BenchmarkLoop(b *testing.B) {
	b.Run("no metrics", func(b *testing.B) { benchmarkLoop(b, nil) })
	b.Run("metrics", func(b *testing.B) { benchmarkLoop(b, prometheus.NewRegistry()) })
}

func benchmarkLoop(b *testing.B, reg prometheus.Registerer) {
	var objs []informer.Object
	for i := range b.N {
		objs = append(objs, cm(fmt.Sprintf("cm-%d", i)))
	}
	src := newMemBackend(objs...)
	var n atomic.Int64
	all := make(chan struct{})
	target := int64(b.N)
	r := ReconcilerFunc(func(context.Context, Request) (Result, error) {
		if n.Add(1) == target {
			close(all)
		}
		return Result{}, nil
	})
	f := informer.NewFactory(src, informer.FactoryOptions{Reflector: informer.ReflectorOptions{DisableStreaming: true}, MutationDetection: informer.DetectOff})
	ctl, err := New(f, Options{Reconciler: r, MaxConcurrentReconciles: 4, Sources: []Source{For[*corev1.ConfigMap]{}}, Registerer: reg})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(b.Context())
	done := make(chan error, 1)
	b.ReportAllocs()
	b.ResetTimer()
	go func() { done <- ctl.Start(ctx) }()
	<-all
	b.StopTimer()
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	_ = f.Wait()
}

// BenchmarkLiveChangeAfterRestart measures what PriorityQueue is for: a
// controller starts over 20,000 existing ConfigMaps (in-memory backend),
// and once its workers run, one ConfigMap is changed. It reports the time
// from that change to the start of its reconcile (ms/live-change) and the
// time to work off the whole initial list (ms/backlog), with the default
// queue ("fifo") and with PriorityQueue. The changed object is the one in
// the middle of the list (listed in key order), so with the default queue
// it waits for half the backlog. Each reconcile sleeps 50µs, standing in
// for an API call; 4 workers.
func BenchmarkLiveChangeAfterRestart(b *testing.B) {
	b.Run("fifo", func(b *testing.B) { benchmarkLiveChange(b, false) })
	b.Run("priority", func(b *testing.B) { benchmarkLiveChange(b, true) })
}

func benchmarkLiveChange(b *testing.B, priority bool) {
	const n = 20000
	const work = 50 * time.Microsecond
	var objs []informer.Object
	for i := range n {
		objs = append(objs, cm(fmt.Sprintf("cm-%05d", i)))
	}
	target := Request{Key: informer.Key{Namespace: "ns", Name: "cm-10000"}}
	var latency, backlog time.Duration
	for b.Loop() {
		src := newMemBackend(objs...)
		var changedAt atomic.Int64 // unix nanoseconds; 0 before the change
		var reconciles atomic.Int64
		started := make(chan struct{})
		var startOnce sync.Once
		seen := make(chan time.Duration, 1)
		all := make(chan time.Time, 1)
		r := ReconcilerFunc(func(_ context.Context, req Request) (Result, error) {
			startOnce.Do(func() { close(started) })
			if at := changedAt.Load(); at != 0 && req == target {
				select {
				case seen <- time.Duration(time.Now().UnixNano() - at):
				default:
				}
			}
			time.Sleep(work) // the simulated work of a benchmark's reconciler
			if reconciles.Add(1) == n {
				all <- time.Now()
			}
			return Result{}, nil
		})
		f := informer.NewFactory(src, informer.FactoryOptions{Reflector: informer.ReflectorOptions{DisableStreaming: true}, MutationDetection: informer.DetectOff})
		ctl, err := New(f, Options{Reconciler: r, MaxConcurrentReconciles: 4, PriorityQueue: priority,
			Sources: []Source{For[*corev1.ConfigMap]{}}})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(b.Context())
		done := make(chan error, 1)
		begin := time.Now()
		go func() { done <- ctl.Start(ctx) }()
		<-started
		changed := cm(target.Name)
		changed.Data = map[string]string{"live": "change"}
		changedAt.Store(time.Now().UnixNano())
		src.write(changed)
		latency += <-seen
		backlog += (<-all).Sub(begin)
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		_ = f.Wait()
	}
	b.ReportMetric(float64(latency.Microseconds())/1000/float64(b.N), "ms/live-change")
	b.ReportMetric(float64(backlog.Microseconds())/1000/float64(b.N), "ms/backlog")
}
