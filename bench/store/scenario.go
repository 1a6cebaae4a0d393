// Package storebench measures an informer's store under read load for any
// client library through a small Driver, the way client-go's own
// BenchmarkSharedIndexInformer does: an informer holds
// 10,000 cached Pods (fixture.Pod, all in one namespace), one writer feeds
// it MODIFIED watch events through a fake watch as fast as it applies them
// (at most 10 in flight), and 10 goroutines keep reading the cache.
//
// Three windows of one process, each a fixed measurement window (not a
// timed assertion):
//
//   - idle: no readers (writes/s only);
//   - list: readers call the store's List of the whole cache: a fresh slice
//     of shared pointers on both sides (kubego Lister.List, client-go
//     Indexer.List);
//   - namespace: readers walk the namespace with a callback and no result
//     slice, as client-go's benchmark does (kubego NamespaceLister.All,
//     client-go cache.ListAllByNamespace).
//
// Writes are counted by the informer's update handler, so a write is an
// event applied to the store and delivered. Every event carries a fresh
// resourceVersion on a shallow copy of a cached Pod.
package storebench

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/bench/internal/fixture"
	"github.com/kubego/kubego/bench/internal/measure"
)

// Readers are the two read operations of the scenario.
type Readers struct {
	// List lists the whole cache into a fresh slice and returns its length.
	List func() int
	// Namespace visits every cached object of namespace ns through a
	// callback or iterator, without a result slice, and returns the count.
	Namespace func(ns string) int
}

// Driver is what a client library provides.
type Driver interface {
	// Start runs an informer whose LIST returns pods (resourceVersion "1")
	// and whose WATCH is w, with an update handler calling onUpdate, and
	// returns once it has synced. ctx stops it.
	Start(ctx context.Context, pods []*corev1.Pod, w watch.Interface, onUpdate func()) (Readers, error)
}

// Main parses the flags, runs the three windows with d and prints one
// measure.Result.
func Main(impl string, d Driver) {
	objects := flag.Int("objects", 10000, "cached Pods")
	readers := flag.Int("readers", 10, "reader goroutines")
	window := flag.Duration("window", 5*time.Second, "measurement window of the list and namespace phases")
	idle := flag.Duration("idle-window", 2*time.Second, "measurement window of the idle phase")
	cpu := flag.String("cpuprofile", "", "write a CPU profile here")
	heap := flag.String("memprofile", "", "write a heap profile here at the end")
	flag.Parse()
	stop := measure.Profiles(*cpu, *heap)
	r, err := run(context.Background(), d, *objects, *readers, *window, *idle)
	stop()
	if err != nil {
		measure.Fail(fmt.Errorf("%s store: %w", impl, err))
	}
	r.Impl, r.Scenario = impl, "store"
	measure.Print(r)
}

// Pods returns n fixture Pods at resourceVersion "1".
func Pods(n int) []*corev1.Pod {
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		pods[i] = fixture.Pod(i)
		pods[i].ResourceVersion = "1"
	}
	return pods
}

func run(ctx context.Context, d Driver, objects, readers int, window, idle time.Duration) (measure.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pods := Pods(objects)
	w := watch.NewFakeWithChanSize(1, false)
	const inFlight = 10
	got := make(chan struct{}, inFlight)
	var writes atomic.Int64
	watchdog := time.AfterFunc(2*time.Minute, func() { measure.Fail(fmt.Errorf("informer not synced after 2m")) })
	rd, err := d.Start(ctx, Pods(objects), w, func() {
		writes.Add(1)
		select {
		case <-got:
		default:
		}
	})
	watchdog.Stop()
	if err != nil {
		return measure.Result{}, err
	}
	if n := rd.List(); n != objects {
		return measure.Result{}, fmt.Errorf("synced store lists %d objects, want %d", n, objects)
	}
	if n := rd.Namespace(fixture.PodNamespace); n != objects {
		return measure.Result{}, fmt.Errorf("synced store has %d objects in %s, want %d", n, fixture.PodNamespace, objects)
	}

	rv := 1
	var sent int64
	send := func(i int) {
		rv++
		p := *pods[i*7919%objects]
		p.ResourceVersion = strconv.Itoa(rv)
		w.Modify(&p)
		sent++
		got <- struct{}{}
	}
	drain := func() error {
		deadline := time.Now().Add(time.Minute)
		for writes.Load() < sent {
			if time.Now().After(deadline) {
				return fmt.Errorf("%d of %d events delivered after a minute", writes.Load(), sent)
			}
			time.Sleep(time.Millisecond)
		}
		for len(got) > 0 {
			<-got
		}
		return nil
	}
	send(0) // the first event proves the watch is in use
	if err := drain(); err != nil {
		return measure.Result{}, err
	}

	m := map[string]float64{"objects": float64(objects), "readers": float64(readers), "gomaxprocs": float64(runtime.GOMAXPROCS(0))}
	phases := []struct {
		name    string
		readers int
		read    func() int
		window  time.Duration
	}{
		{"idle", 0, nil, idle},
		{"list", readers, rd.List, window},
		{"namespace", readers, func() int { return rd.Namespace(fixture.PodNamespace) }, window},
	}
	for _, ph := range phases {
		runtime.GC()
		var lists atomic.Int64
		var short atomic.Int64
		var stop atomic.Bool
		var wg sync.WaitGroup
		for range ph.readers {
			wg.Go(func() {
				for !stop.Load() {
					if ph.read() != objects {
						short.Add(1)
					}
					lists.Add(1)
				}
			})
		}
		w0, l0, t0 := writes.Load(), lists.Load(), time.Now()
		end := t0.Add(ph.window)
		for i := 1; time.Now().Before(end); i++ {
			send(i)
		}
		w1, l1, el := writes.Load(), lists.Load(), time.Since(t0)
		stop.Store(true)
		wg.Wait()
		if err := drain(); err != nil {
			return measure.Result{}, fmt.Errorf("%s: %w", ph.name, err)
		}
		if short.Load() > 0 {
			return measure.Result{}, fmt.Errorf("%s: %d reads saw fewer than %d objects", ph.name, short.Load(), objects)
		}
		suffix := "_" + ph.name
		if ph.name == "list" {
			suffix = ""
		}
		m["writes_per_sec"+suffix] = float64(w1-w0) / el.Seconds()
		if ph.readers > 0 {
			m["lists_per_sec"+suffix] = float64(l1-l0) / el.Seconds()
		}
	}
	return measure.Result{Metrics: m}, nil
}
