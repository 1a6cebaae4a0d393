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

// Kind is a population an informer of the scenarios caches.
type Kind string

const (
	Pods           Kind = "pods"           // corev1.Pod
	ConfigMaps     Kind = "configmaps"     // corev1.ConfigMap
	Secrets        Kind = "secrets"        // corev1.Secret
	EndpointSlices Kind = "endpointslices" // discoveryv1.EndpointSlice
	Events         Kind = "events"         // corev1.Event
	Widgets        Kind = "widgets"        // fixture.WidgetGVR, always Dynamic
)

// Source is what an informer of a scenario caches: the objects of one
// kind in one namespace, in one form.
type Source struct {
	Kind      Kind
	Namespace string
	Form      Form
}

// Handlers are called from the informer's event handler; nil is none.
type Handlers struct {
	OnAdd, OnUpdate func()
}

// Driver is what a client library provides to the scenarios.
type Driver interface {
	// Sync starts an informer over src with h as its handler, and returns
	// once it has synced. snapshot lists the store (the result is kept
	// reachable by the caller) and returns its length.
	Sync(ctx context.Context, kubeconfig string, src Source, h Handlers) (snapshot func() (any, int), err error)
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
	scenario := flag.String("scenario", "sync", "sync | sync-metadata | sync-dynamic | sync-shape | churn | relist | watch | list")
	kind := flag.String("kind", string(Pods), "sync-shape: pods | configmaps | secrets | endpointslices | widgets | events")
	namespace := flag.String("namespace", fixture.PodNamespace, "sync, sync-shape: the namespace synced")
	window := flag.Duration("window", 10*time.Second, "churn: how long the informer handles the Events created meanwhile")
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
		r, err = syncScenario(ctx, d, *kubeconfig, Source{Pods, *namespace, Typed})
	case "sync-metadata":
		r, err = syncScenario(ctx, d, *kubeconfig, Source{Pods, *namespace, Metadata})
	case "sync-dynamic":
		r, err = syncScenario(ctx, d, *kubeconfig, Source{Pods, *namespace, Dynamic})
	case "sync-shape":
		form := Typed
		if Kind(*kind) == Widgets {
			form = Dynamic
		}
		r, err = syncScenario(ctx, d, *kubeconfig, Source{Kind(*kind), *namespace, form})
	case "churn":
		r, err = churnScenario(ctx, d, *kubeconfig, *window)
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

func syncScenario(ctx context.Context, d Driver, kubeconfig string, src Source) (measure.Result, error) {
	start := time.Now()
	snapshot, err := d.Sync(ctx, kubeconfig, src, Handlers{})
	if err != nil {
		return measure.Result{}, err
	}
	wall := time.Since(start)
	items, n := snapshot()
	heap, total := measure.LiveHeap()
	runtime.KeepAlive(items)
	if n == 0 {
		return measure.Result{}, fmt.Errorf("no %s in namespace %s", src.Kind, src.Namespace)
	}
	return measure.Result{Metrics: map[string]float64{
		"sync_seconds":         wall.Seconds(),
		"live_heap_mb":         heap / mb,
		"peak_rss_mb":          measure.PeakRSSBytes() / mb,
		"total_alloc_mb":       total / mb,
		"objects":              float64(n),
		"live_heap_kb_per_obj": heap / 1024 / float64(n),
		"sync_us_per_obj":      wall.Seconds() * 1e6 / float64(n),
	}}, nil
}

// churnScenario syncs an informer over fixture.EventNamespace while Events
// are being created there (by the runner, at a steady rate), then counts
// for window the Events its handler receives, and the process's CPU time
// and allocation meanwhile.
func churnScenario(ctx context.Context, d Driver, kubeconfig string, window time.Duration) (measure.Result, error) {
	var adds atomic.Int64
	snapshot, err := d.Sync(ctx, kubeconfig, Source{Events, fixture.EventNamespace, Typed}, Handlers{OnAdd: func() { adds.Add(1) }})
	if err != nil {
		return measure.Result{}, err
	}
	cpu0, alloc0, n0, t0 := measure.CPUSeconds(), measure.TotalAlloc(), adds.Load(), time.Now()
	select {
	case <-ctx.Done():
		return measure.Result{}, ctx.Err()
	case <-time.After(window):
	}
	cpu1, alloc1, n1, elapsed := measure.CPUSeconds(), measure.TotalAlloc(), adds.Load(), time.Since(t0)
	items, n := snapshot()
	heap, _ := measure.LiveHeap()
	runtime.KeepAlive(items)
	events := float64(n1 - n0)
	if events == 0 {
		return measure.Result{}, fmt.Errorf("no Event created during the %s window (is the runner creating them?)", window)
	}
	return measure.Result{Metrics: map[string]float64{
		"events_per_sec":     events / elapsed.Seconds(),
		"cpu_us_per_event":   (cpu1 - cpu0) * 1e6 / events,
		"alloc_kb_per_event": (alloc1 - alloc0) / 1024 / events,
		"live_heap_mb":       heap / mb,
		"peak_rss_mb":        measure.PeakRSSBytes() / mb,
		"cpu_seconds":        cpu1 - cpu0,
		"events":             events,
		"objects":            float64(n),
	}}, nil
}

func relistScenario(ctx context.Context, d Driver, kubeconfig, control string) (measure.Result, error) {
	if kubeconfig == "" || control == "" {
		return measure.Result{}, fmt.Errorf("relist needs -proxy-kubeconfig and -proxy-control")
	}
	var updates atomic.Int64
	snapshot, err := d.Sync(ctx, kubeconfig, Source{Pods, fixture.PodNamespace, Typed}, Handlers{OnUpdate: func() { updates.Add(1) }})
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
