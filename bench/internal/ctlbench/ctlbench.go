// Package ctlbench is the side of the controller benchmarks (kubego against
// controller-runtime) that runs inside each controller process, the same
// for both libraries: the flags, a RoundTripper counting API requests by
// verb, a poller of the reconcile counter, and the two ways a run ends.
//
// A run has one of two modes:
//
//   - converge: the controller runs until the runner, which watches the
//     objects from outside, sees all of them in their desired state and
//     sends SIGUSR1. The process then reads its CPU time, runs two GCs,
//     reads its live heap and peak RSS (the caches still in use), prints
//     one JSON line and exits.
//   - restart: the controller starts over objects already in their
//     desired state and runs until it is idle (its caches synced and no
//     reconcile finished for Quiet), then prints one JSON line and exits:
//     the time from the runner's exec to the last reconcile (or to the
//     sync, if none ran), CPU time, reconciles run, and the cold start:
//     the time until N reconciles had finished.
//
// Times are measured from -t0, the runner's clock just before it started
// the process, so they include the process start.
package ctlbench

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubego/kubego/bench/internal/measure"
)

// Quiet is how long a restarted controller must run no reconcile to be
// idle.
const Quiet = 2 * time.Second

// poll is how often the reconcile counter is read.
const poll = 50 * time.Millisecond

// Flags are the command line of both controller binaries.
type Flags struct {
	Workload  string // labeler or foo
	Mode      string // converge or restart
	Namespace string
	N         int
	T0        time.Time
	CPUProf   string
	MemProf   string
}

// ParseFlags parses the command line into Flags.
func ParseFlags() Flags {
	var f Flags
	var t0 int64
	flag.StringVar(&f.Workload, "workload", "labeler", "labeler or foo")
	flag.StringVar(&f.Mode, "mode", "converge", "converge (until SIGUSR1) or restart (until idle)")
	flag.StringVar(&f.Namespace, "namespace", "", "namespace of the workload's objects")
	flag.IntVar(&f.N, "n", 5000, "objects of the workload (the cold start waits for this many reconciles)")
	flag.Int64Var(&t0, "t0", 0, "UnixNano of the runner's clock when it started this process")
	flag.StringVar(&f.CPUProf, "cpuprofile", "", "write a CPU profile of the run here")
	flag.StringVar(&f.MemProf, "memprofile", "", "write a heap profile at the end of the run here")
	flag.Parse()
	f.T0 = time.Now()
	if t0 > 0 {
		f.T0 = time.Unix(0, t0)
	}
	if f.Workload != "labeler" && f.Workload != "foo" {
		measure.Fail(fmt.Errorf("unknown workload %q", f.Workload))
	}
	if f.Mode != "converge" && f.Mode != "restart" {
		measure.Fail(fmt.Errorf("unknown mode %q", f.Mode))
	}
	return f
}

// Verbs counts API requests by verb. Wrap is a rest.Config.WrapTransport
// (the same field in kubego and client-go).
type Verbs struct {
	mu sync.Mutex
	n  map[string]float64
}

// Wrap counts every request sent through rt.
func (v *Verbs) Wrap(rt http.RoundTripper) http.RoundTripper {
	return rtFunc(func(r *http.Request) (*http.Response, error) {
		verb := Verb(r)
		v.mu.Lock()
		if v.n == nil {
			v.n = map[string]float64{}
		}
		v.n[verb]++
		v.mu.Unlock()
		return rt.RoundTrip(r)
	})
}

// Metrics returns the counts as requests_<verb> and requests_total.
func (v *Verbs) Metrics(into map[string]float64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	total := 0.0
	for _, verb := range []string{"list", "watch", "get", "create", "update", "patch", "delete", "discovery"} {
		into["requests_"+verb] = v.n[verb]
		total += v.n[verb]
	}
	into["requests_total"] = total
}

type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Verb names the API verb of r: list, watch, get, create, update, patch,
// delete, or discovery (anything outside a resource path).
func Verb(r *http.Request) string {
	p := strings.Trim(r.URL.Path, "/")
	segs := strings.Split(p, "/")
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		segs = segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		segs = segs[3:]
	default:
		return "discovery"
	}
	if len(segs) >= 3 && segs[0] == "namespaces" {
		segs = segs[2:]
	}
	switch r.Method {
	case http.MethodGet:
		switch {
		case r.URL.Query().Get("watch") == "true" || r.URL.Query().Get("watch") == "1":
			return "watch"
		case len(segs) == 1:
			return "list"
		}
		return "get"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return strings.ToLower(r.Method)
}

// Hooks is what a controller binary gives Run about its library.
type Hooks struct {
	Impl string
	// Reconciles returns how many reconciles have finished (any result).
	Reconciles func() float64
	// Synced reports whether the controller's caches have synced.
	Synced func() bool
	// Verbs counts the controller's requests.
	Verbs *Verbs
}

// Run waits for the end of the run (SIGUSR1 in converge mode, idleness
// in restart mode), prints the result and exits the process. stop ends
// the controller; it is called after the measurements.
func Run(f Flags, h Hooks, stopProfiles func(), stop func()) {
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	res := measure.Result{Impl: h.Impl, Scenario: f.Workload + "/" + f.Mode, Metrics: map[string]float64{}}
	m := res.Metrics

	var last atomic.Int64 // UnixNano of the last change of the counter
	var prev float64
	var syncedAt, coldAt time.Time
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-usr1:
			done = f.Mode == "converge"
		case now := <-tick.C:
			n := h.Reconciles()
			if n != prev {
				prev = n
				last.Store(now.UnixNano())
			}
			if syncedAt.IsZero() && h.Synced() {
				syncedAt = now
			}
			if coldAt.IsZero() && n >= float64(f.N) {
				coldAt = now
			}
			if f.Mode == "restart" && !syncedAt.IsZero() && now.Sub(lastOr(last.Load(), syncedAt)) >= Quiet {
				end := lastOr(last.Load(), syncedAt)
				if syncedAt.After(end) {
					end = syncedAt
				}
				m["restart_seconds"] = end.Sub(f.T0).Seconds()
				if !coldAt.IsZero() {
					m["coldstart_seconds"] = coldAt.Sub(f.T0).Seconds()
				}
				done = true
			}
		}
	}
	cpu := cpuSeconds()
	if f.Mode == "restart" {
		m["restart_cpu_seconds"] = cpu
		m["restart_reconciles"] = h.Reconciles()
		m["restart_peak_rss_mb"] = measure.PeakRSSBytes() / (1 << 20)
		h.Verbs.Metrics(m)
		for k, v := range m {
			if strings.HasPrefix(k, "requests_") {
				delete(m, k)
				m["restart_"+k] = v
			}
		}
	} else {
		m["cpu_seconds"] = cpu
		m["reconciles"] = h.Reconciles()
		m["peak_rss_mb"] = measure.PeakRSSBytes() / (1 << 20)
		live, total := measure.LiveHeap()
		m["live_heap_mb"] = live / (1 << 20)
		m["total_alloc_mb"] = total / (1 << 20)
		h.Verbs.Metrics(m)
	}
	stopProfiles()
	measure.Print(res)
	if stop != nil {
		stop()
	}
	os.Exit(0)
}

func lastOr(unixNano int64, or time.Time) time.Time {
	if unixNano == 0 {
		return or
	}
	return time.Unix(0, unixNano)
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// ReconcileCount returns a func summing every controller_runtime_reconcile_total
// counter of g (the name both libraries give their reconcile counter).
func ReconcileCount(g prometheus.Gatherer) func() float64 {
	return func() float64 {
		fams, err := g.Gather()
		if err != nil {
			return 0
		}
		sum := 0.0
		for _, f := range fams {
			if f.GetName() != "controller_runtime_reconcile_total" {
				continue
			}
			for _, m := range f.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
		}
		return sum
	}
}
