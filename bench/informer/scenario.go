// Package informerbench runs the informer, watch and list scenarios of the
// suite against any client library through a small Driver, so the kubego
// and client-go binaries measure exactly the same thing the same way. Each
// binary runs one scenario per process and prints one measure.Result line.
package informerbench

import (
	"context"
	"flag"
	"fmt"
	"net/http"

	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubego/kubego/bench/internal/fixture"
	"github.com/kubego/kubego/bench/internal/measure"
)

// Form is the representation an informer holds.
type Form string

const (
	Typed    Form = "typed"
	Metadata Form = "metadata"
	Dynamic  Form = "dynamic"
)

// Driver is what a client library provides to the scenarios.
type Driver interface {
	// SyncPods starts an informer over the Pods of fixture.PodNamespace in
	// the given form, with onUpdate called from its update handler, and
	// returns once it has synced. snapshot lists the store (the result is
	// kept reachable by the caller) and returns its length.
	SyncPods(ctx context.Context, kubeconfig string, form Form, onUpdate func()) (snapshot func() (any, int), err error)
	// WatchConfigMaps starts an informer over fixture.WatchNamespace whose
	// update handler calls onUpdate with the new resourceVersion, waits
	// for sync, and returns a function that updates ConfigMap i, setting
	// data.seq, and returns the resourceVersion of the response.
	WatchConfigMaps(ctx context.Context, kubeconfig string, onUpdate func(rv string)) (update func(ctx context.Context, i int, seq string) (string, error), err error)
	// ListPods returns a function listing up to limit Pods of
	// fixture.PodNamespace through the library's Clientset in JSON or
	// protobuf, returning the number of items.
	ListPods(kubeconfig string, protobuf bool) (list func(ctx context.Context, limit int64) (int, error), err error)
}

// Main parses the flags and runs one scenario with d, printing its result.
func Main(impl string, d Driver) {
	scenario := flag.String("scenario", "sync", "sync | sync-metadata | sync-dynamic | relist | watch | list")
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the control plane")
	proxyKubeconfig := flag.String("proxy-kubeconfig", "", "relist: kubeconfig through the fault proxy")
	control := flag.String("proxy-control", "", "relist: URL that makes the fault proxy close watches and answer the next with 410")
	cpu := flag.String("cpuprofile", "", "write a CPU profile here")
	heap := flag.String("memprofile", "", "write a heap profile here at the end")
	listLimit := flag.Int64("list-limit", 1000, "list: objects per List")
	rounds := flag.Int("watch-rounds", 3, "watch: updates per ConfigMap")
	flag.Parse()
	if *kubeconfig == "" {
		measure.Fail(fmt.Errorf("-kubeconfig is required"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := measure.Profiles(*cpu, *heap)
	var r measure.Result
	var err error
	switch *scenario {
	case "sync":
		r, err = syncScenario(ctx, d, *kubeconfig, Typed)
	case "sync-metadata":
		r, err = syncScenario(ctx, d, *kubeconfig, Metadata)
	case "sync-dynamic":
		r, err = syncScenario(ctx, d, *kubeconfig, Dynamic)
	case "relist":
		r, err = relistScenario(ctx, d, *proxyKubeconfig, *control)
	case "watch":
		r, err = watchScenario(ctx, d, *kubeconfig, *rounds)
	case "list":
		r, err = listScenario(ctx, d, *kubeconfig, *listLimit)
	default:
		err = fmt.Errorf("unknown -scenario %q", *scenario)
	}
	stop()
	if err != nil {
		measure.Fail(fmt.Errorf("%s %s: %w", impl, *scenario, err))
	}
	r.Impl, r.Scenario = impl, *scenario
	measure.Print(r)
}

const mb = 1 << 20

func syncScenario(ctx context.Context, d Driver, kubeconfig string, form Form) (measure.Result, error) {
	start := time.Now()
	snapshot, err := d.SyncPods(ctx, kubeconfig, form, func() {})
	if err != nil {
		return measure.Result{}, err
	}
	wall := time.Since(start)
	items, n := snapshot()
	heap, total := measure.LiveHeap()
	runtime.KeepAlive(items)
	return measure.Result{Metrics: map[string]float64{
		"sync_seconds":   wall.Seconds(),
		"live_heap_mb":   heap / mb,
		"peak_rss_mb":    measure.PeakRSSBytes() / mb,
		"total_alloc_mb": total / mb,
		"objects":        float64(n),
	}}, nil
}

func relistScenario(ctx context.Context, d Driver, kubeconfig, control string) (measure.Result, error) {
	if kubeconfig == "" || control == "" {
		return measure.Result{}, fmt.Errorf("relist needs -proxy-kubeconfig and -proxy-control")
	}
	var updates atomic.Int64
	snapshot, err := d.SyncPods(ctx, kubeconfig, Typed, func() { updates.Add(1) })
	if err != nil {
		return measure.Result{}, err
	}
	items, n := snapshot()
	// Let the informer settle, then take the steady heap after a GC.
	time.Sleep(500 * time.Millisecond)
	steadyHeap, _ := measure.LiveHeap()
	steadyObj, steadyLive := measure.HeapNow()
	updates.Store(0)
	sm := measure.StartSampler(2 * time.Millisecond)
	start := time.Now()
	resp, err := http.Post(control, "text/plain", nil)
	if err != nil {
		sm.Stop()
		return measure.Result{}, fmt.Errorf("arming the fault proxy: %w", err)
	}
	resp.Body.Close()
	deadline := time.Now().Add(3 * time.Minute)
	for updates.Load() < int64(n) {
		if time.Now().After(deadline) {
			sm.Stop()
			return measure.Result{}, fmt.Errorf("relist not seen: %d of %d updates after 3m", updates.Load(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	relist := time.Since(start)
	time.Sleep(200 * time.Millisecond)
	peakObj, peakLive, samples := sm.Stop()
	runtime.KeepAlive(items)
	return measure.Result{Metrics: map[string]float64{
		"relist_peak_heap_ratio": float64(peakObj) / steadyHeap,
		"relist_peak_live_ratio": float64(peakLive) / float64(max(steadyLive, 1)),
		"steady_heap_mb":         steadyHeap / mb,
		"relist_peak_heap_mb":    float64(peakObj) / mb,
		"relist_seconds":         relist.Seconds(),
		"objects":                float64(n),
		"samples":                float64(samples),
	}, Notes: map[string]string{"steady_heap_objects_mb": strconv.FormatFloat(float64(steadyObj)/mb, 'f', 1, 64)}}, nil
}

func watchScenario(ctx context.Context, d Driver, kubeconfig string, rounds int) (measure.Result, error) {
	var mu sync.Mutex
	seen := make(map[string]time.Time, fixture.WatchConfigMaps*rounds)
	var last time.Time
	update, err := d.WatchConfigMaps(ctx, kubeconfig, func(rv string) {
		now := time.Now()
		mu.Lock()
		seen[rv] = now
		last = now
		mu.Unlock()
	})
	if err != nil {
		return measure.Result{}, err
	}
	type write struct {
		rv string
		at time.Time
	}
	const writers = 16
	writes := make([][]write, writers)
	errs := make(chan error, writers)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 1; r <= rounds; r++ {
				for i := w; i < fixture.WatchConfigMaps; i += writers {
					rv, err := update(ctx, i, strconv.Itoa(r))
					if err != nil {
						errs <- err
						return
					}
					writes[w] = append(writes[w], write{rv, time.Now()})
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return measure.Result{}, err
	}
	writeEnd := time.Since(start)
	total := 0
	for _, ws := range writes {
		total += len(ws)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		mu.Lock()
		got := 0
		for _, ws := range writes {
			for _, w := range ws {
				if _, ok := seen[w.rv]; ok {
					got++
				}
			}
		}
		mu.Unlock()
		if got == total || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	var lat []float64
	early := 0
	for _, ws := range writes {
		for _, w := range ws {
			at, ok := seen[w.rv]
			if !ok {
				continue
			}
			l := at.Sub(w.at).Seconds() * 1000
			if l < 0 {
				early++ // the handler ran before the writer got its response
				l = 0
			}
			lat = append(lat, l)
		}
	}
	missing := total - len(lat)
	events := float64(len(lat))
	return measure.Result{Metrics: map[string]float64{
		"watch_p50_ms":            measure.Percentile(lat, 50),
		"watch_p99_ms":            measure.Percentile(lat, 99),
		"watch_events_per_sec":    events / last.Sub(start).Seconds(),
		"writes_per_sec":          float64(total) / writeEnd.Seconds(),
		"events":                  events,
		"events_missing":          float64(missing),
		"handler_before_response": float64(early),
	}}, nil
}

func listScenario(ctx context.Context, d Driver, kubeconfig string, limit int64) (measure.Result, error) {
	const iterations = 5
	m := map[string]float64{}
	for _, pb := range []bool{false, true} {
		name := "json"
		if pb {
			name = "protobuf"
		}
		list, err := d.ListPods(kubeconfig, pb)
		if err != nil {
			return measure.Result{}, err
		}
		if _, err := list(ctx, limit); err != nil { // warm up the connection
			return measure.Result{}, err
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		objects := 0
		for range iterations {
			n, err := list(ctx, limit)
			if err != nil {
				return measure.Result{}, err
			}
			objects += n
		}
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		if objects == 0 {
			return measure.Result{}, fmt.Errorf("list returned no objects")
		}
		m["list_"+name+"_us_per_obj"] = float64(elapsed.Microseconds()) / float64(objects)
		m["list_"+name+"_bytes_per_obj"] = float64(after.TotalAlloc-before.TotalAlloc) / float64(objects)
		m["list_"+name+"_allocs_per_obj"] = float64(after.Mallocs-before.Mallocs) / float64(objects)
	}
	return measure.Result{Metrics: m}, nil
}
