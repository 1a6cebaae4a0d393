//go:build linux

package faults_test

import (
	"context"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/testenv"
)

// The soak: the fault scenarios in random order for KUBEGO_SOAK (a
// duration, "1h" by make soak), with the writer writing, an informer (the
// oracle's, through the L4 proxy) and a controller (a marker of the
// writer's objects, through the L7 proxy) alive throughout. Every 10 s it
// samples the heap (after a GC), the goroutines and the open sockets of
// the process; at the end the least-squares slope of each, past the first
// minute, must stay under its bound, and the oracle must hold.

// Slope bounds, per hour. A leak of one goroutine, one socket or 100 KiB
// per fault (the soak injects a few hundred faults an hour) breaks them.
const (
	soakHeapSlope      = 32 << 20 // bytes/h
	soakGoroutineSlope = 100      // goroutines/h
	soakSocketSlope    = 50       // sockets/h
	soakWarmup         = time.Minute
	soakSampleEvery    = 10 * time.Second
)

type soakSample struct {
	At                  time.Duration
	Heap                uint64
	Goroutines, Sockets int
}

// soakFault is one fault the soak can inject; run returns when it is over.
type soakFault struct {
	name string
	run  func(ctx context.Context)
}

func TestSoak(t *testing.T) {
	v := os.Getenv("KUBEGO_SOAK")
	if v == "" {
		t.Skip("the soak runs only with KUBEGO_SOAK=<duration> (make soak)")
	}
	total, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("KUBEGO_SOAK=%q: %v", v, err)
	}
	if os.Getenv("KUBEGO_SOAK_PROFILES") != "" {
		// Fine enough sampling for a drift of a few MiB an hour to show.
		runtime.MemProfileRate = 16 << 10
	}
	cp := testenv.Shared(t)
	c := newClient(t, cp.Config())
	ns := newNamespace(t, c)
	truth := client.Typed[*corev1.ConfigMap](c).Namespace(ns)
	p4 := newTCPProxy(t, apiAddr(t, cp.APIServer().URL()))
	p7 := newL7Proxy(t, cp)

	wr := &writer{Clients: []*client.Resource[*corev1.ConfigMap]{truth}, Names: 30, Every: 100 * time.Millisecond}
	stopWriter := startWriter(t, wr)
	infCfg := viaProxy(cp.Config(), p4)
	infCfg.HealthPingInterval, infCfg.PingTimeout = time.Second, time.Second
	// The informers share equal values between cached objects, as by
	// default, unless KUBEGO_SOAK_SHARING=off. Every write's value recurs
	// here, but only in the next event of its own object (the
	// controller's mark), so no sharing table keeps it; what a table
	// keeps is bounded by the objects it serves (internal/codec/dedup,
	// bound_test.go). Turning sharing off shows whether a rise of the heap
	// is the tables'.
	sharing := os.Getenv("KUBEGO_SOAK_SHARING") != "off"
	w := startInformerWith(t, infCfg, ns, informer.Options[*corev1.ConfigMap]{DisableSharing: !sharing})
	mgr, m, err := newCtlManager(p7.Config(), ctlOptions{Namespace: ns, Identity: "soak", WantKey: "i", Workers: 2, DisableSharing: !sharing}, nil, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	stopMgr := runManager(t, mgr)

	var writesFailing atomic.Bool
	p7.add(&l7Rule{Match: func(r *http.Request) bool { return isWrite(r) && writesFailing.Load() }, Respond: func(w http.ResponseWriter, r *http.Request) {
		serverError(w, http.StatusServiceUnavailable)
	}})
	faults := []soakFault{
		{"L4: reset every informer connection", func(ctx context.Context) { p4.Reset(); sleepCtx(ctx, 3*time.Second) }},
		{"L4: black-hole the informer's connection for 4 s", func(ctx context.Context) {
			p4.SetMode(l4BlackHole)
			sleepCtx(ctx, 4*time.Second)
			p4.SetMode(l4Pass)
			p4.Reset()
			sleepCtx(ctx, 3*time.Second)
		}},
		{"L7: the controller's writes answered 503 for 10 s", func(ctx context.Context) {
			writesFailing.Store(true)
			sleepCtx(ctx, 10*time.Second)
			writesFailing.Store(false)
			sleepCtx(ctx, 3*time.Second)
		}},
		{"L7: 429 on the next 3 watch starts, connections closed", func(ctx context.Context) {
			p7.add(&l7Rule{Match: isCMWatch, Times: 3, Respond: tooMany})
			p7.srv.CloseClientConnections()
			sleepCtx(ctx, 6*time.Second)
		}},
		{"L7: an in-stream 500 on the next watch", func(ctx context.Context) {
			ru := injectOnNextWatch(p7, func(i int, f []byte) ([]byte, bool) {
				return nl([]byte(`{"type":"ERROR","object":` + statusJSON("Failure", 500, "InternalError", "injected") + `}`)), true
			})
			waitUsed(ctx, ru, 3*time.Second)
		}},
		{"L7: every connection closed", func(ctx context.Context) { p7.srv.CloseClientConnections(); sleepCtx(ctx, 3*time.Second) }},
		{"API server killed (SIGKILL) and restarted", func(ctx context.Context) {
			as := cp.APIServer()
			as.Kill()
			sleepCtx(ctx, 2*time.Second)
			// Restarted even if the soak's time is up: the oracle needs it.
			if err := as.Restart(t.Context()); err != nil {
				t.Errorf("API server restart: %v", err)
			}
			sleepCtx(ctx, 5*time.Second)
		}},
	}

	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 7))
	t.Logf("soak for %s, fault order seed %d, informers sharing values: %v", total, seed, sharing)
	start := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), total)
	defer cancel()

	var mu sync.Mutex
	var samples []soakSample
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(soakSampleEvery)
		defer tick.Stop()
		warm := false
		for {
			s := sample(time.Since(start))
			mu.Lock()
			samples = append(samples, s)
			mu.Unlock()
			if !warm && s.At >= soakWarmup {
				warm = true
				writeHeapProfile(t, "heap-warm.pprof")
			}
			t.Logf("sample %s: heap %.1f MiB, %d goroutines, %d sockets", s.At.Round(time.Second), float64(s.Heap)/(1<<20), s.Goroutines, s.Sockets)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()

	counts := map[string]int{}
	for ctx.Err() == nil {
		f := faults[rng.IntN(len(faults))]
		counts[f.name]++
		f.run(ctx)
		sleepCtx(ctx, 2*time.Second)
	}
	<-sampled
	writeHeapProfile(t, "heap-end.pprof")
	p7.clear()
	p4.SetMode(l4Pass)
	sleepCtx(t.Context(), 2*time.Second)
	stopWriter()
	acked, failed, ever := wr.stats()
	for name, n := range counts {
		t.Logf("fault %q: %d times", name, n)
	}
	t.Logf("writer: %d writes acknowledged, %d failed; controller: %d reconciles, %d marks, %d failed writes",
		acked, failed, m.calls.Load(), m.writes.Load(), m.errs.Load())

	took := waitMarked(t, c, ns, "i", -1, time.Minute)
	t.Logf("controller oracle: every object marked with its latest data %s after the writes stopped", took.Round(time.Millisecond))
	if err := stopMgr(); err != nil {
		t.Errorf("manager: %v", err)
	}
	w.check(t, truth, ever)

	mu.Lock()
	defer mu.Unlock()
	var xs, heap, gor, socks []float64
	for _, s := range samples {
		if s.At < soakWarmup {
			continue
		}
		xs = append(xs, s.At.Hours())
		heap = append(heap, float64(s.Heap))
		gor = append(gor, float64(s.Goroutines))
		socks = append(socks, float64(s.Sockets))
	}
	if len(xs) < 3 {
		t.Fatalf("%d samples past the warm-up: run the soak longer", len(xs))
	}
	hs, gs, ss := slope(xs, heap), slope(xs, gor), slope(xs, socks)
	t.Logf("slopes over %d samples (%s to %s): heap %+.2f MiB/h (bound %d), goroutines %+.1f/h (bound %d), sockets %+.1f/h (bound %d)",
		len(xs), soakWarmup, samples[len(samples)-1].At.Round(time.Second),
		hs/(1<<20), soakHeapSlope>>20, gs, soakGoroutineSlope, ss, soakSocketSlope)
	if hs > soakHeapSlope {
		t.Errorf("heap grows %.2f MiB/h, bound %d", hs/(1<<20), soakHeapSlope>>20)
	}
	if gs > soakGoroutineSlope {
		t.Errorf("goroutines grow %.1f/h, bound %d", gs, soakGoroutineSlope)
	}
	if ss > soakSocketSlope {
		t.Errorf("sockets grow %.1f/h, bound %d", ss, soakSocketSlope)
	}
}

// sample measures the process now: heap in use after a GC, goroutines,
// open sockets.
func sample(at time.Duration) soakSample {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return soakSample{At: at, Heap: ms.HeapAlloc, Goroutines: runtime.NumGoroutine(), Sockets: openSockets()}
}

// openSockets counts the file descriptors of the process that are
// sockets.
func openSockets() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}

// slope is the least-squares slope of ys over xs.
func slope(xs, ys []float64) float64 {
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= float64(len(xs))
	my /= float64(len(ys))
	var num, den float64
	for i := range xs {
		num += (xs[i] - mx) * (ys[i] - my)
		den += (xs[i] - mx) * (xs[i] - mx)
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// writeHeapProfile writes the test process's heap profile (after a GC)
// as name into the directory KUBEGO_SOAK_PROFILES names, if it is set
// (make soak sets it): compare the warm and end profiles with
// go tool pprof -base heap-warm.pprof heap-end.pprof.
func writeHeapProfile(t *testing.T, name string) {
	dir := os.Getenv("KUBEGO_SOAK_PROFILES")
	if dir == "" {
		return
	}
	runtime.GC()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Errorf("heap profile: %v", err)
		return
	}
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Errorf("heap profile: %v", err)
		return
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		t.Errorf("heap profile: %v", err)
	}
}
