// Command labeler runs the DESIGN.md §6 controller scenario: the labeler
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
//   - labeler: start a controller.Manager running the labeler restricted to
//     the namespace, with default settings. The clock starts before
//     Manager.Start and stops when the N-th successful patch response
//     arrives (counted by a WrapTransport round-tripper), so it includes
//     the informer's initial sync, queueing and the reconcile loop.
//
// Both modes send exactly N patches. With -throttle, every client gets a
// rest.Config.RateLimiter token bucket of 5 qps and burst 10: client-go's
// default client-side throttling, which kubego does not apply by default.
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
	"runtime/pprof"
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

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/examples/labeler/labeler"
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
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the labeler runs (client side) to this file")
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

	var prof *os.File
	if *cpuprofile != "" {
		if prof, err = os.Create(*cpuprofile); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer prof.Close()
	}
	var bare, ctl []float64
	for round := range *rounds {
		// Alternate which mode goes first, so neither always runs on a
		// server that has just absorbed the other's 5,000 writes.
		modes := []string{"bare", "labeler"}
		if round%2 == 1 {
			modes[0], modes[1] = modes[1], modes[0]
		}
		for _, mode := range modes {
			ns := fmt.Sprintf("%s-%d", mode, round)
			if err := populate(ctx, setup, ns, *n); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			cfg := cp.Config()
			if *throttle {
				cfg.RateLimiter = rate.NewLimiter(5, 10)
			}
			var d, first time.Duration
			var reconciles, requests map[string]float64
			cpu0, server0 := cpuTime(), descendantsCPU()
			if mode == "bare" {
				d, first, err = runBare(ctx, cfg, ns, *n, *workers)
				bare = append(bare, d.Seconds())
			} else {
				if prof != nil {
					if err := pprof.StartCPUProfile(prof); err != nil {
						fmt.Fprintln(os.Stderr, err)
						os.Exit(1)
					}
				}
				d, first, reconciles, requests, err = runLabeler(ctx, cfg, ns, *n, log)
				if prof != nil {
					pprof.StopCPUProfile()
					prof = nil // the first labeler run only
				}
				ctl = append(ctl, d.Seconds())
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, mode, err)
				os.Exit(1)
			}
			if err := verify(ctx, setup, ns, *n); err != nil {
				fmt.Fprintln(os.Stderr, mode, err)
				os.Exit(1)
			}
			w := *workers
			if mode == "labeler" {
				w = labeler.DefaultWorkers
			}
			line, _ := json.Marshal(result{mode, *n, w, *throttle, d.Seconds(), float64(*n) / d.Seconds(), (cpuTime() - cpu0).Seconds(), first.Seconds(), (descendantsCPU() - server0).Seconds(), reconciles, requests})
			fmt.Println(string(line))
		}
	}
	fmt.Printf("median bare %.3fs, labeler %.3fs, ratio labeler/bare %.3f\n", median(bare), median(ctl), median(ctl)/median(bare))
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
	if _, err := client.For[*corev1.Namespace](c).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	deps := client.For[*appsv1.Deployment](c).Namespace(ns)
	return parallel(n, 32, func(i int) error {
		_, err := deps.Create(ctx, deployment(fmt.Sprintf("d-%05d", i)), metav1.CreateOptions{})
		return err
	})
}

// runBare lists the Deployments and patches each once from workers
// goroutines.
func runBare(ctx context.Context, cfg *rest.Config, ns string, n, workers int) (elapsed, first time.Duration, err error) {
	c, err := newClient(cfg)
	if err != nil {
		return 0, 0, err
	}
	var once sync.Once
	patch := []byte(`{"metadata":{"labels":{"` + labeler.Label + `":"bare"}}}`)
	deps := client.For[*appsv1.Deployment](c).Namespace(ns)
	start := time.Now()
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
func runLabeler(ctx context.Context, cfg *rest.Config, ns string, n int, log *slog.Logger) (elapsed, first time.Duration, reconciles, requests map[string]float64, err error) {
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
	mgr, err := controller.NewManager(controller.ManagerOptions{Config: cfg, Logger: log})
	if err != nil {
		return 0, 0, nil, nil, err
	}
	if _, err := labeler.Setup(mgr, labeler.Options{Namespace: ns}); err != nil {
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
	for d, err := range client.For[*appsv1.Deployment](c).Namespace(ns).All(ctx, client.AllOptions{}) {
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

// descendantsCPU returns the CPU time (user+system) used so far by the
// live descendants of this process, read from /proc (0 where unavailable).
func descendantsCPU() time.Duration {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	type proc struct {
		ppid int
		cpu  time.Duration
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
		procs[pid] = proc{ppid, time.Duration(ut+st) * (time.Second / 100)} // USER_HZ
	}
	self := os.Getpid()
	var total time.Duration
	for pid, p := range procs {
		for q, ok := p, true; ok; q, ok = procs[q.ppid] {
			if q.ppid == self {
				total += procs[pid].cpu
				break
			}
		}
	}
	return total
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func deployment(name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
}
