// Command labeler runs the controller scenario of the bench suite: the labeler
// controller (examples/labeler) on N Deployments, against a bare update
// loop doing the same writes with the same client, on a local control plane
// (testenv), and prints one JSON line per run plus a summary.
//
//	go run ./labeler -n 5000 -rounds 2
//	go run ./labeler -n 300 -throttle   # client-go's default 5 qps / burst 10
//
// Each run gets a fresh namespace holding N unlabeled Deployments, created
// before the clock starts. Then:
//
//   - bare: list the namespace's Deployments (pages of 500) and send one
//     JSON merge patch adding the label to each, from W goroutines (W = the
//     labeler's worker count, 4 by default), on a kubego client made from
//     the same rest.Config. The clock stops at the last patch response.
//   - labeler: start a manager.Manager running the labeler restricted to
//     the namespace, with default settings. The clock starts before
//     Manager.Start and stops when the N-th successful patch response
//     arrives (counted by a WrapTransport round-tripper), so it includes
//     the informer's initial sync, queueing and the reconcile loop.
//
// Both modes send exactly N patches. With -throttle, every client gets a
// rest.Config.RateLimiter token bucket of 5 qps and burst 10: client-go's
// default client-side throttling, which kubego does not apply by default.
//
// Each round runs every mode once; the order rotates from round to round
// (bare, labeler; then labeler, bare), so over an even number of rounds
// each mode runs first as often as second. The control plane slows down
// and speeds up over its life by more than the difference measured here,
// so compare modes over such pairs of rounds (bench/cmd/runner does), not
// within one round.
//
// After each run its Deployments are deleted (-cleanup), so every run
// meets a server holding about as many objects. Each JSON line reports
// wall time and CPU seconds: the client's (this process) and the control
// plane's (kube-apiserver and etcd, from /proc). On a machine where the
// control plane saturates the cores, wall time follows total CPU, and the
// CPU ratio is the steadier of the two.
//
// For experiments, -modes runs other modes each round (order rotating):
// the bare loop with the labeler's watch beside it, and either mode
// without compression (modes.go); -cpuprofile and -serverprofile write
// client and kube-apiserver CPU profiles of every run into a directory:
//
//	go run ./labeler -n 5000 -rounds 3 -modes bare,bare+watch,labeler \
//	    -cpuprofile /tmp/p -serverprofile /tmp/p -serverprofile-window 12s
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/time/rate"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/bench/internal/fixture"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/examples/labeler/labeler"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

type result struct {
	Mode      string  `json:"mode"`
	N         int     `json:"n"`
	Workers   int     `json:"workers"`
	Throttled bool    `json:"throttled"`
	Seconds   float64 `json:"seconds"`
	PerSec    float64 `json:"patches_per_sec"`
	// CPUSeconds is this process's user+system CPU time during the run
	// (the client side only; steadier than wall time on a busy machine).
	CPUSeconds float64 `json:"client_cpu_seconds"`
	// FirstPatch is when the first patch response arrived, in seconds
	// from the start: for bare, the list; for the labeler, the informer's
	// sync and the first reconcile.
	FirstPatch float64 `json:"first_patch_seconds"`
	// ServerCPUSeconds is the CPU time of the control plane (this
	// process's descendants: etcd, kube-apiserver) during the run.
	ServerCPUSeconds float64 `json:"server_cpu_seconds"`
	// APIServerCPUSeconds and EtcdCPUSeconds split ServerCPUSeconds by
	// program.
	APIServerCPUSeconds float64 `json:"apiserver_cpu_seconds"`
	EtcdCPUSeconds      float64 `json:"etcd_cpu_seconds"`
	// Reconciles by result, and API requests by method and code, for the
	// labeler (from its Manager's registry).
	Reconciles map[string]float64 `json:"reconciles,omitempty"`
	Requests   map[string]float64 `json:"requests,omitempty"`
}

func main() {
	n := flag.Int("n", 5000, "deployments per run")
	rounds := flag.Int("rounds", 1, "bare/labeler pairs to run, alternating")
	workers := flag.Int("workers", labeler.DefaultWorkers, "goroutines of the bare loop (the labeler uses its default)")
	throttle := flag.Bool("throttle", false, "5 qps / burst 10 client-side limit on every client (client-go's default)")
	modeList := flag.String("modes", "bare,labeler", "comma-separated modes to run each round, rotating the order: bare, labeler, and their variants (see modes.go)")
	cleanup := flag.Bool("cleanup", true, "delete each run's Deployments after it is verified")
	cpuprofile := flag.String("cpuprofile", "", "write client-side CPU profiles of every run to this directory, as <mode>-<round>.client.pprof")
	serverprof := flag.String("serverprofile", "", "write kube-apiserver CPU profiles of every run to this directory, as <mode>-<round>.apiserver.pprof")
	serverprofWindow := flag.Duration("serverprofile-window", 8*time.Second, "how much of each run (from its start) the kube-apiserver profile covers")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx := context.Background()

	cp, err := testenv.Start(ctx, testenv.Options{Logger: log})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer cp.Stop()
	setup, err := newClient(cp.Config())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}

	all, err := parseModes(*modeList)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stats := map[string]*modeStats{}
	for round := range *rounds {
		// Rotate which mode goes first, so none always runs on a server
		// that has just absorbed another's 5,000 writes.
		modes := append(append([]mode(nil), all[round%len(all):]...), all[:round%len(all)]...)
		for _, m := range modes {
			mode := m.name
			ns := fmt.Sprintf("%s-%d", strings.NewReplacer("+", "-", "=", "-", "!", "").Replace(mode), round)
			if err := populate(ctx, setup, ns, *n); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			cfg := cp.Config()
			if *throttle {
				cfg.RateLimiter = rate.NewLimiter(5, 10)
			}
			m.configure(cfg)
			var d, first time.Duration
			var reconciles, requests map[string]float64
			var profDone <-chan error
			if *serverprof != "" {
				profDone = serverProfile(ctx, cp.Config(), *serverprofWindow, fmt.Sprintf("%s/%s-%d.apiserver.pprof", *serverprof, mode, round))
			}
			stopProfile := func() {}
			if *cpuprofile != "" {
				if stopProfile, err = startProfile(fmt.Sprintf("%s/%s-%d.client.pprof", *cpuprofile, mode, round)); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
			}
			cpu0, server0 := cpuTime(), descendantsCPU()
			if m.bare {
				d, first, err = runBare(ctx, cfg, ns, *n, *workers, m.watch)
			} else {
				d, first, reconciles, requests, err = runLabeler(ctx, cfg, ns, *n, m, log)
			}
			cpu1, server1 := cpuTime(), descendantsCPU()
			stopProfile()
			if err != nil {
				fmt.Fprintln(os.Stderr, mode, err)
				os.Exit(1)
			}
			if profDone != nil {
				if err := <-profDone; err != nil {
					fmt.Fprintln(os.Stderr, mode, err)
				}
			}
			if err := verify(ctx, setup, ns, *n); err != nil {
				fmt.Fprintln(os.Stderr, mode, err)
				os.Exit(1)
			}
			if *cleanup {
				// Delete the run's Deployments (the namespace stays: no
				// namespace controller runs), so that every run meets a
				// server holding about as many objects.
				if err := client.Typed[*appsv1.Deployment](setup).Namespace(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
					fmt.Fprintln(os.Stderr, mode, "cleanup:", err)
					os.Exit(1)
				}
			}
			w := *workers
			if !m.bare {
				w = labeler.DefaultWorkers
			}
			line, _ := json.Marshal(result{
				Mode: mode, N: *n, Workers: w, Throttled: *throttle,
				Seconds: d.Seconds(), PerSec: float64(*n) / d.Seconds(),
				CPUSeconds: (cpu1 - cpu0).Seconds(), FirstPatch: first.Seconds(),
				ServerCPUSeconds:    server1.total().Seconds() - server0.total().Seconds(),
				APIServerCPUSeconds: (server1["kube-apiserver"] - server0["kube-apiserver"]).Seconds(),
				EtcdCPUSeconds:      (server1["etcd"] - server0["etcd"]).Seconds(),
				Reconciles:          reconciles, Requests: requests,
			})
			fmt.Println(string(line))
			st := stats[mode]
			if st == nil {
				st = &modeStats{}
				stats[mode] = st
			}
			st.add(d, cpu1-cpu0, server1.total()-server0.total())
		}
	}
	printSummary(all, stats)
}

func newClient(cfg *rest.Config) (*client.Client, error) {
	rc, err := rest.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return client.New(rc, client.Options{}), nil
}

// populate creates namespace ns holding n unlabeled Deployments.
func populate(ctx context.Context, c *client.Client, ns string, n int) error {
	if _, err := client.Typed[*corev1.Namespace](c).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	deps := client.Typed[*appsv1.Deployment](c).Namespace(ns)
	return parallel(n, 32, func(i int) error {
		_, err := deps.Create(ctx, fixture.LabelerDeployment(fmt.Sprintf("d-%05d", i)), metav1.CreateOptions{})
		return err
	})
}

// runBare lists the Deployments and patches each once from workers
// goroutines. With watch, the labeler's informer runs beside it on the
// same client, from the start to the last patch.
func runBare(ctx context.Context, cfg *rest.Config, ns string, n, workers int, watch bool) (elapsed, first time.Duration, err error) {
	c, err := newClient(cfg)
	if err != nil {
		return 0, 0, err
	}
	var once sync.Once
	patch := []byte(`{"metadata":{"labels":{"` + labeler.Label + `":"bare"}}}`)
	deps := client.Typed[*appsv1.Deployment](c).Namespace(ns)
	start := time.Now()
	if watch {
		f := informer.NewFactory(c, informer.FactoryOptions{})
		mustAcquire(informer.AcquireMetadata(f, appsv1.SchemeGroupVersion.WithResource("deployments"), informer.SharedOptions{Namespace: ns, LabelSelector: "!" + labeler.Label}))
		wctx, cancel := context.WithCancel(ctx)
		f.Start(wctx)
		defer func() { cancel(); _ = f.Wait() }()
	}
	var names []string
	for d, err := range deps.All(ctx, client.AllOptions{}) {
		if err != nil {
			return 0, 0, err
		}
		names = append(names, d.Name)
	}
	if len(names) != n {
		return 0, 0, fmt.Errorf("listed %d deployments, want %d", len(names), n)
	}
	err = parallel(n, workers, func(i int) error {
		_, err := deps.Patch(ctx, names[i], types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "bare"})
		once.Do(func() { first = time.Since(start) })
		return err
	})
	return time.Since(start), first, err
}

// runLabeler runs the labeler until it has sent n successful patches.
func runLabeler(ctx context.Context, cfg *rest.Config, ns string, n int, m mode, log *slog.Logger) (elapsed, first time.Duration, reconciles, requests map[string]float64, err error) {
	var patched atomic.Int64
	var firstAt atomic.Int64 // UnixNano of the first patch response
	all := make(chan struct{})
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(r)
			if err == nil && r.Method == http.MethodPatch && resp.StatusCode == http.StatusOK && strings.Contains(r.URL.Path, "/deployments/") {
				firstAt.CompareAndSwap(0, time.Now().UnixNano())
				if patched.Add(1) == int64(n) {
					close(all)
				}
			}
			return resp, err
		})
	}
	start := time.Now()
	mgr, err := manager.New(manager.Options{Config: cfg, Logger: log})
	if err != nil {
		return 0, 0, nil, nil, err
	}
	lopts := m.labeler
	lopts.Namespace = ns
	_, err = labeler.Setup(mgr, lopts)
	if err != nil {
		return 0, 0, nil, nil, err
	}
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	select {
	case <-all:
		elapsed = time.Since(start)
		first = time.Unix(0, firstAt.Load()).Sub(start)
	case err := <-done:
		cancel()
		return 0, 0, nil, nil, fmt.Errorf("manager stopped early: %v", err)
	case <-time.After(time.Hour):
		cancel()
		return 0, 0, nil, nil, fmt.Errorf("only %d patches after an hour", patched.Load())
	}
	cancel()
	err = <-done
	reconciles = map[string]float64{}
	requests = map[string]float64{}
	families, _ := mgr.Registry().Gather()
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			switch f.GetName() {
			case "controller_runtime_reconcile_total":
				reconciles[labels["result"]] += m.GetCounter().GetValue()
			case "rest_client_requests_total":
				requests[labels["method"]+" "+labels["code"]] += m.GetCounter().GetValue()
			}
		}
	}
	return elapsed, first, reconciles, requests, err
}

// verify checks that all n Deployments of ns carry the label.
func verify(ctx context.Context, c *client.Client, ns string, n int) error {
	got := 0
	for d, err := range client.Typed[*appsv1.Deployment](c).Namespace(ns).All(ctx, client.AllOptions{}) {
		if err != nil {
			return err
		}
		if d.Labels[labeler.Label] != "" {
			got++
		}
	}
	if got != n {
		return fmt.Errorf("%d of %d deployments labeled", got, n)
	}
	return nil
}

func parallel(n, workers int, fn func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					once.Do(func() { first = err })
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}

// cpuTime returns the CPU time (user+system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuByProgram is CPU time by program name (/proc/<pid>/comm).
type cpuByProgram map[string]time.Duration

func (c cpuByProgram) total() time.Duration {
	var t time.Duration
	for _, d := range c {
		t += d
	}
	return t
}

// descendantsCPU returns the CPU time (user+system) used so far by the
// live descendants of this process, by program, read from /proc (empty
// where unavailable).
func descendantsCPU() cpuByProgram {
	out := cpuByProgram{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	type proc struct {
		ppid int
		cpu  time.Duration
		name string
	}
	procs := map[int]proc{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command may hold spaces: fields start after the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 13 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		name := ""
		if j := bytes.IndexByte(b, '('); j >= 0 && j < i {
			name = string(b[j+1 : i])
		}
		procs[pid] = proc{ppid, time.Duration(ut+st) * (time.Second / 100), name} // USER_HZ
	}
	self := os.Getpid()
	for _, p := range procs {
		for q, ok := p, true; ok; q, ok = procs[q.ppid] {
			if q.ppid == self {
				out[p.name] += p.cpu
				break
			}
		}
	}
	return out
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// mustAcquire returns the informer of a factory that cannot refuse a
// request (no OneInformerPerType), failing loudly if it ever did.
func mustAcquire[T informer.Object](inf *informer.Informer[T], err error) *informer.Informer[T] {
	if err != nil {
		panic(err)
	}
	return inf
}
