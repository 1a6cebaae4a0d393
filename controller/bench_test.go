package controller

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

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
	ctl, err := New(f, Options{Reconciler: r, MaxConcurrentReconciles: 4, Sources: []Source{For[*corev1.ConfigMap](SourceOptions{})}, Registerer: reg})
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
