// Command workqueue runs the bench suite's workqueue scenario against one
// implementation and prints one JSON line with its throughput and
// allocation cost, so that a driver can run kubego and client-go in fresh
// processes, alternately, and compare medians.
//
//	go run ./workqueue -impl=kubego -keys=1000000
//	go run ./workqueue -impl=client-go -keys=1000000
//
// Scenario: keys distinct keys ("namespace/name" strings by default, or
// {Namespace, Name} structs with -key=struct; built before measuring) are split among producers, which Add them as fast as they can;
// workers Get each key, Forget it and mark it Done, as a controller does
// after a successful reconcile. Both queues are the rate-limiting queues a
// controller would use, with their default rate limiters and no metrics.
// The clock stops when every key has been processed. Reported:
//
//	adds_per_sec    keys / elapsed seconds
//	bytes_per_add   runtime.MemStats.TotalAlloc delta / keys
//	allocs_per_add  runtime.MemStats.Mallocs delta / keys
//	cpu_ns_per_add  process CPU time (user+system, GC included) / keys;
//	                steadier than adds_per_sec on a busy machine
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	kubegoqueue "github.com/kubego/kubego/workqueue"
	cgqueue "k8s.io/client-go/util/workqueue"
)

// queue is the part of a work queue the scenario drives.
type queue[K comparable] interface {
	add(k K)
	// get returns false once the queue is shut down.
	get() (K, bool)
	forget(k K)
	done(k K)
	shutDown()
}

type kubego[K comparable] struct{ q *kubegoqueue.Queue[K] }

func (k kubego[K]) add(key K) { k.q.Add(key) }
func (k kubego[K]) get() (K, bool) {
	return k.q.Get(context.Background())
}
func (k kubego[K]) forget(key K) { k.q.Forget(key) }
func (k kubego[K]) done(key K)   { k.q.Done(key) }
func (k kubego[K]) shutDown()    { k.q.ShutDown() }

type clientGo[K comparable] struct {
	q cgqueue.TypedRateLimitingInterface[K]
}

func (c clientGo[K]) add(key K) { c.q.Add(key) }
func (c clientGo[K]) get() (K, bool) {
	k, shutdown := c.q.Get()
	return k, !shutdown
}
func (c clientGo[K]) forget(key K) { c.q.Forget(key) }
func (c clientGo[K]) done(key K)   { c.q.Done(key) }
func (c clientGo[K]) shutDown()    { c.q.ShutDown() }

// objectKey has the shape of the key kubego's controllers queue (informer.Key,
// which controller.Request embeds): a namespace and a name.
type objectKey struct{ Namespace, Name string }

func newQueue[K comparable](impl string) (queue[K], bool) {
	switch impl {
	case "kubego":
		return kubego[K]{kubegoqueue.New(kubegoqueue.Options[K]{})}, true
	case "client-go":
		return clientGo[K]{cgqueue.NewTypedRateLimitingQueue(cgqueue.DefaultTypedControllerRateLimiter[K]())}, true
	}
	return nil, false
}

// Result is the JSON line the command prints.
type Result struct {
	Impl         string  `json:"impl"`
	Key          string  `json:"key"`
	Keys         int     `json:"keys"`
	Producers    int     `json:"producers"`
	Workers      int     `json:"workers"`
	GOMAXPROCS   int     `json:"gomaxprocs"`
	Seconds      float64 `json:"seconds"`
	AddsPerSec   float64 `json:"adds_per_sec"`
	BytesPerAdd  float64 `json:"bytes_per_add"`
	AllocsPerAdd float64 `json:"allocs_per_add"`
	CPUNsPerAdd  float64 `json:"cpu_ns_per_add"`
	PeakHeap     uint64  `json:"peak_heap_bytes"`
}

func main() {
	impl := flag.String("impl", "kubego", "implementation: kubego or client-go")
	keys := flag.Int("keys", 1_000_000, "distinct keys to add")
	producers := flag.Int("producers", 4, "goroutines adding keys")
	workers := flag.Int("workers", 8, "goroutines processing keys")
	keyType := flag.String("key", "string", `key type: "string" ("namespace/name") or "struct" ({Namespace, Name})`)
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the measured run to this file")
	flag.Parse()
	if *keys <= 0 || *producers <= 0 || *workers <= 0 {
		fmt.Fprintln(os.Stderr, "workqueue: -keys, -producers and -workers must be positive")
		os.Exit(2)
	}

	if *impl != "kubego" && *impl != "client-go" {
		fmt.Fprintf(os.Stderr, "workqueue: unknown -impl %q (want kubego or client-go)\n", *impl)
		os.Exit(2)
	}
	var measure func() Result
	switch *keyType {
	case "string":
		q, _ := newQueue[string](*impl)
		keys := makeKeys(*keys)
		measure = func() Result { return run(q, keys, *producers, *workers) }
	case "struct":
		q, _ := newQueue[objectKey](*impl)
		keys := makeStructKeys(*keys)
		measure = func() Result { return run(q, keys, *producers, *workers) }
	default:
		fmt.Fprintf(os.Stderr, "workqueue: unknown -key %q (want string or struct)\n", *keyType)
		os.Exit(2)
	}

	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "workqueue:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "workqueue:", err)
			os.Exit(1)
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	r := measure()
	r.Impl, r.Key = *impl, *keyType
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		fmt.Fprintln(os.Stderr, "workqueue:", err)
		os.Exit(1) //nolint:gocritic // the deferred profile flush is moot on this path
	}
}

// makeKeys returns n distinct keys shaped like controller keys.
func makeKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("namespace-%03d/object-%07d", i%500, i)
	}
	return keys
}

// makeStructKeys returns n distinct struct keys with the same strings as
// makeKeys.
func makeStructKeys(n int) []objectKey {
	keys := make([]objectKey, n)
	for i := range keys {
		keys[i] = objectKey{fmt.Sprintf("namespace-%03d", i%500), fmt.Sprintf("object-%07d", i)}
	}
	return keys
}

func run[K comparable](q queue[K], keys []K, producers, workers int) Result {
	var (
		processed atomic.Int64
		all       = make(chan struct{})
		start     = make(chan struct{})
		wg        sync.WaitGroup
		n         = int64(len(keys))
	)
	for range workers {
		wg.Go(func() {
			for {
				k, ok := q.get()
				if !ok {
					return
				}
				q.forget(k)
				q.done(k)
				if processed.Add(1) == n {
					close(all)
				}
			}
		})
	}
	per := (len(keys) + producers - 1) / producers
	for p := range producers {
		part := keys[min(p*per, len(keys)):min((p+1)*per, len(keys))]
		wg.Go(func() {
			<-start
			for _, k := range part {
				q.add(k)
			}
		})
	}

	peak := make(chan uint64)
	stopPeak := make(chan struct{})
	go samplePeak(stopPeak, peak)

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := cpuTime()
	t0 := time.Now()
	close(start)
	<-all
	elapsed := time.Since(t0)
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&after)
	close(stopPeak)
	q.shutDown()
	wg.Wait()

	adds := float64(len(keys))
	return Result{
		Keys:         len(keys),
		Producers:    producers,
		Workers:      workers,
		GOMAXPROCS:   runtime.GOMAXPROCS(0),
		Seconds:      elapsed.Seconds(),
		AddsPerSec:   adds / elapsed.Seconds(),
		BytesPerAdd:  float64(after.TotalAlloc-before.TotalAlloc) / adds,
		AllocsPerAdd: float64(after.Mallocs-before.Mallocs) / adds,
		CPUNsPerAdd:  float64(cpu.Nanoseconds()) / adds,
		PeakHeap:     <-peak,
	}
}

// cpuTime returns the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// samplePeak reports the largest HeapAlloc seen every 10ms until stop.
func samplePeak(stop <-chan struct{}, out chan<- uint64) {
	var m runtime.MemStats
	var peak uint64
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapAlloc)
		select {
		case <-stop:
			out <- peak
			return
		case <-t.C:
		}
	}
}
