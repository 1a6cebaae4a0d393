package informer

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

func benchPod(i int, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace: fmt.Sprintf("ns-%d", i%50), Name: fmt.Sprintf("pod-%d", i), ResourceVersion: rv,
		Labels: map[string]string{"app": "web", "tier": strconv.Itoa(i % 3), "idx": strconv.Itoa(i)},
	}}
}

// BenchmarkStoreWritesUnderReadLoad measures events applied per second by an
// informer while 10 goroutines keep listing its 10,000 cached objects
// (the store row of `make bench` compares it with client-go).
// Reported: writes/s and lists/s.
func BenchmarkStoreWritesUnderReadLoad(b *testing.B) {
	for _, readers := range []int{0, 10} {
		b.Run(fmt.Sprintf("readers=%d", readers), func(b *testing.B) { benchStoreWrites(b, readers) })
	}
}

func benchStoreWrites(b *testing.B, readers int) {
	const objects = 10000
	items := make([]*corev1.Pod, objects)
	for i := range items {
		items[i] = benchPod(i, "1")
	}
	inf := New(Funcs[*corev1.Pod]{}, Options[*corev1.Pod]{MutationDetection: DetectOff})
	s := (*sink[*corev1.Pod])(inf)
	s.Replace(items, "1")
	inf.AddEventHandler(HandlerFuncs[*corev1.Pod]{}, HandlerOptions{}) // one handler, not running: buffers only
	var stop atomic.Bool
	var lists atomic.Int64
	var wg sync.WaitGroup
	for range readers {
		wg.Go(func() {
			for !stop.Load() {
				if len(inf.Lister().List(nil)) < objects {
					panic("short list")
				}
				lists.Add(1)
			}
		})
	}
	updates := make([]*corev1.Pod, 1024)
	for i := range updates {
		updates[i] = benchPod(i*7%objects, strconv.Itoa(i+2))
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		s.Update(updates[i%len(updates)])
	}
	el := time.Since(start)
	stop.Store(true)
	wg.Wait()
	b.ReportMetric(float64(b.N)/el.Seconds(), "writes/s")
	b.ReportMetric(float64(lists.Load())/el.Seconds(), "lists/s")
	inf.listeners = nil
}

// BenchmarkReplace measures a relist of 20,000 objects into a store that
// holds 20,000 (half of them changed).
func BenchmarkReplace(b *testing.B) {
	const n = 20000
	old := make([]*corev1.Pod, n)
	next := make([]*corev1.Pod, n)
	for i := range n {
		old[i] = benchPod(i, "1")
		if i%2 == 0 {
			next[i] = benchPod(i, "2")
		} else {
			next[i] = old[i]
		}
	}
	st := newStore[*corev1.Pod](nil, nil, nil)
	st.replace(old, true)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			st.replace(next, false)
		} else {
			st.replace(old, false)
		}
	}
}

// BenchmarkWatchEvent measures one watch event through an informer with one
// running handler.
func BenchmarkWatchEvent(b *testing.B) {
	w := watch.NewFakeWithChanSize(1024, false)
	lw := Funcs[*corev1.Pod]{
		ListFunc: func(ctxIgnored contextT, _ metav1.ListOptions) (ListResult[*corev1.Pod], error) {
			return ListResult[*corev1.Pod]{ResourceVersion: "1"}, nil
		},
		WatchFunc: func(contextT, metav1.ListOptions) (watch.Interface, error) { return w, nil },
	}
	inf := New[*corev1.Pod](lw, Options[*corev1.Pod]{MutationDetection: DetectOff, Reflector: ReflectorOptions{DisableStreaming: true}})
	var got atomic.Int64
	inf.AddEventHandler(HandlerFuncs[*corev1.Pod]{UpdateFunc: func(_, _ *corev1.Pod) { got.Add(1) }, AddFunc: func(*corev1.Pod, bool) { got.Add(1) }}, HandlerOptions{})
	stop := start(b, inf)
	defer stop()
	inf.WaitForSync(b.Context())
	pods := make([]*corev1.Pod, 1000)
	for i := range pods {
		pods[i] = benchPod(i, "5")
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		// Each event a newer version: the reflector drops replayed ones.
		p := *pods[n%len(pods)]
		p.ResourceVersion = strconv.Itoa(n + 10)
		w.Modify(&p)
		n++
	}
	for got.Load() < int64(n) {
		time.Sleep(time.Millisecond) // a benchmark waiting for its handler; not a test
	}
}

type contextT = context.Context

// BenchmarkInformerUnderReadLoad mirrors client-go's
// BenchmarkSharedIndexInformer (podCount=10000): 10,000 Pods in one
// namespace, watch MODIFIED events through the whole informer (reflector,
// store, handler) with at most 10 in flight, while N goroutines keep listing
// the namespace through the Lister (List, or the allocation-free All
// iterator like client-go's ListAllByNamespace callback). The bench module
// runs client-go's side of it (the store row of `make bench`).
func BenchmarkInformerUnderReadLoad(b *testing.B) {
	const podCount = 10000
	pods := make([]*corev1.Pod, podCount)
	for i := range pods {
		pods[i] = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("pod-%08d-%d", i*7919%podCount, i)}}
	}
	for _, c := range []struct {
		readers int
		iterate bool
	}{{0, false}, {1, false}, {10, false}, {1, true}, {10, true}} {
		readers, iterate := c.readers, c.iterate
		name := fmt.Sprintf("readers=%d", readers)
		if iterate {
			name += "/iterate"
		}
		b.Run(name, func(b *testing.B) {
			w := watch.NewFakeWithChanSize(1, false)
			lw := Funcs[*corev1.Pod]{
				ListFunc: func(contextT, metav1.ListOptions) (ListResult[*corev1.Pod], error) {
					return ListResult[*corev1.Pod]{Items: pods, ResourceVersion: "1"}, nil
				},
				WatchFunc: func(contextT, metav1.ListOptions) (watch.Interface, error) { return w, nil },
			}
			inf := New[*corev1.Pod](lw, Options[*corev1.Pod]{MutationDetection: DetectOff, Reflector: ReflectorOptions{DisableStreaming: true}})
			stopInf := start(b, inf)
			defer stopInf()
			inf.WaitForSync(b.Context())
			var writes, reads atomic.Int64
			got := make(chan struct{}, 10)
			inf.AddEventHandler(HandlerFuncs[*corev1.Pod]{UpdateFunc: func(_, _ *corev1.Pod) {
				writes.Add(1)
				select {
				case <-got:
				default:
				}
			}}, HandlerOptions{})
			w.Modify(pods[0])
			for writes.Load() == 0 {
				time.Sleep(time.Millisecond) // a benchmark waiting for the writer; not a test
			}
			var stop atomic.Bool
			var wg sync.WaitGroup
			lister := inf.Lister().Namespace("default")
			for range readers {
				wg.Go(func() {
					for !stop.Load() {
						if iterate {
							for range lister.All(nil) {
							}
						} else {
							lister.List(nil)
						}
						reads.Add(1)
					}
				})
			}
			writes.Store(0)
			reads.Store(0)
			i := 0
			for b.Loop() {
				w.Modify(pods[i*31%podCount])
				got <- struct{}{}
				i++
			}
			b.ReportMetric(float64(reads.Load())/b.Elapsed().Seconds(), "reads/s")
			b.ReportMetric(float64(writes.Load())/b.Elapsed().Seconds(), "writes/s")
			stop.Store(true)
			wg.Wait()
		})
	}
}

// BenchmarkList measures one Lister list of 10,000 cached objects, all in
// one namespace: whole cache and by namespace.
func BenchmarkList(b *testing.B) {
	st := newStore[*corev1.Pod](nil, nil, nil)
	items := make([]*corev1.Pod, 10000)
	for i := range items {
		items[i] = benchPod(i, "1")
		items[i].Namespace = "default"
	}
	st.replace(items, true)
	l := Lister[*corev1.Pod]{store: st}
	b.Run("all", func(b *testing.B) {
		for b.Loop() {
			l.List(nil)
		}
	})
	b.Run("namespace", func(b *testing.B) {
		for b.Loop() {
			l.Namespace("default").List(nil)
		}
	})
}

// BenchmarkInitialSync measures the informer's own cost of an initial LIST
// of 20,000 Pods in pages of 500 (decoding excluded): prepare, store, and
// one handler's initial batch.
func BenchmarkInitialSync(b *testing.B) {
	const n = 20000
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		pods[i] = benchPod(i, "1")
		pods[i].ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "bench"}}
	}
	b.ReportAllocs()
	for b.Loop() {
		lw := Funcs[*corev1.Pod]{
			ListFunc: func(_ contextT, o metav1.ListOptions) (ListResult[*corev1.Pod], error) {
				start := 0
				if o.Continue != "" {
					start, _ = strconv.Atoi(o.Continue)
				}
				end := min(start+int(o.Limit), n)
				res := ListResult[*corev1.Pod]{Items: pods[start:end], ResourceVersion: "1"}
				if end < n {
					res.Continue = strconv.Itoa(end)
				}
				return res, nil
			},
			WatchFunc: func(contextT, metav1.ListOptions) (watch.Interface, error) { return watch.NewFake(), nil },
		}
		inf := New[*corev1.Pod](lw, Options[*corev1.Pod]{MutationDetection: DetectOff, Reflector: ReflectorOptions{DisableStreaming: true}})
		var seen atomic.Int64
		inf.AddEventHandler(HandlerFuncs[*corev1.Pod]{AddFunc: func(*corev1.Pod, bool) { seen.Add(1) }}, HandlerOptions{})
		stop := start(b, inf)
		inf.WaitForSync(b.Context())
		for seen.Load() < n {
			time.Sleep(100 * time.Microsecond) // a benchmark waiting for its handler; not a test
		}
		stop()
	}
}
