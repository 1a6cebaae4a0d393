// Command failover is `make bench-failover`: it measures how long a
// controller is without a leader when its leading replica goes, for kubego
// and for controller-runtime v0.25, side by side, on a real kube-apiserver
// (testenv) holding -n ConfigMaps in one namespace.
//
// Each scenario runs two replicas of one controller (For ConfigMaps, a
// reconciler that only counts) as separate processes of this program
// (-replica kubego or -replica controller-runtime), with leader election
// at the default durations (15 s lease, 10 s renew deadline, 2 s retry
// period) and release on cancel. The first replica leads and reconciles
// every object; the second starts, and once it stands by (its caches
// synced when warm; -cold-settle after its start when cold) it reports its
// live heap and RSS. Then the runner stops the leader — SIGKILL (a crash)
// or SIGTERM (a graceful stop, which releases the Lease) — and measures
// the time from the signal to the successor's winning the Lease and to its
// first reconcile. Warm standby is kubego's controller.StandbyWarm (its
// default) and controller-runtime's EnableWarmup; cold is StandbyCold and
// controller-runtime's default.
//
//	go run ./cmd/failover -n 20000
//	go run ./cmd/failover -n 20000,100000 -runs 3
//	go run ./cmd/failover -render   # failover.md and the docs again from failover.json
//
// It writes results/failover.json and results/failover.md, and the
// generated "failover" section of docs/failover.md.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/bench/internal/fixture"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == "-replica" {
		replicaMain(os.Args[2], os.Args[3:])
		return
	}
	var o options
	ns := flag.String("n", envString("BENCH_FAILOVER_N", "20000"), "ConfigMap counts, comma-separated (env BENCH_FAILOVER_N)")
	flag.IntVar(&o.runs, "runs", 1, "runs of each scenario")
	flag.StringVar(&o.only, "only", "", "run only the scenarios whose name contains this")
	flag.DurationVar(&o.coldSettle, "cold-settle", 5*time.Second, "how long a cold standby runs before its memory is read")
	flag.StringVar(&o.out, "out", "results", "directory of failover.json and failover.md")
	flag.StringVar(&o.docs, "docs", "..", "repository root whose docs/failover.md gets the generated table; empty writes none")
	onlyRender := flag.Bool("render", false, "only write failover.md and the docs' table again from failover.json")
	flag.Parse()
	if *onlyRender {
		if err := render(o); err != nil {
			fmt.Fprintln(os.Stderr, "failover:", err)
			os.Exit(1)
		}
		return
	}
	for _, s := range strings.Split(*ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "failover: bad -n %q\n", s)
			os.Exit(2)
		}
		o.sizes = append(o.sizes, n)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "failover:", err)
		os.Exit(1)
	}
}

func envString(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

type options struct {
	sizes      []int
	runs       int
	only       string
	coldSettle time.Duration
	out, docs  string
}

// replicaMain runs one replica and exits.
func replicaMain(impl string, args []string) {
	fs := flag.NewFlagSet("replica", flag.ExitOnError)
	var f replicaFlags
	fs.StringVar(&f.namespace, "namespace", "", "")
	fs.StringVar(&f.lease, "lease", "", "")
	fs.StringVar(&f.identity, "identity", "", "")
	fs.IntVar(&f.n, "n", 0, "")
	fs.BoolVar(&f.warm, "warm", false, "")
	fs.DurationVar(&f.coldSettle, "cold-settle", 5*time.Second, "")
	_ = fs.Parse(args)
	var err error
	switch impl {
	case "kubego":
		err = runKubego(f)
	case "controller-runtime":
		err = runCtrlRuntime(f)
	default:
		err = fmt.Errorf("unknown replica %q", impl)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
}

// scenario is one way of failing over.
type scenario struct {
	impl string // kubego or controller-runtime
	warm bool
	stop string // kill or term
}

func (s scenario) name() string {
	standby := "cold"
	if s.warm {
		standby = "warm"
	}
	return s.impl + "/" + standby + "/" + s.stop
}

func scenarios() []scenario {
	var out []scenario
	for _, stop := range []string{"term", "kill"} {
		for _, warm := range []bool{true, false} {
			for _, impl := range []string{"kubego", "controller-runtime"} {
				out = append(out, scenario{impl, warm, stop})
			}
		}
	}
	return out
}

// result is one run of one scenario.
type result struct {
	Scenario string  `json:"scenario"`
	Impl     string  `json:"impl"`
	Standby  string  `json:"standby"`
	Stop     string  `json:"stop"`
	Objects  int     `json:"objects"`
	Run      int     `json:"run"`
	Elected  float64 `json:"elected_seconds"`         // signal → successor leads
	First    float64 `json:"first_reconcile_seconds"` // signal → successor's first reconcile
	All      float64 `json:"all_reconciled_seconds"`  // signal → successor reconciled every object
	Heap     float64 `json:"standby_heap_mb"`         // successor's live heap while standing by
	RSS      float64 `json:"standby_rss_mb"`
	Error    string  `json:"error,omitempty"`
}

func run(ctx context.Context, o options) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "failover-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	logf("starting the control plane")
	cp, err := testenv.Start(ctx, testenv.Options{Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	defer cp.Stop()
	kubeconfig := filepath.Join(tmp, "kubeconfig")
	if err := cp.WriteKubeconfig(kubeconfig); err != nil {
		return err
	}
	rc, err := rest.NewClient(cp.Config())
	if err != nil {
		return err
	}
	c := client.New(rc, client.Options{})
	load := loadAverage()
	var results []result
	for _, n := range o.sizes {
		ns := fmt.Sprintf("failover-%d", n)
		t0 := time.Now()
		if err := populate(ctx, c, ns, n); err != nil {
			return fmt.Errorf("populating %d ConfigMaps: %w", n, err)
		}
		logf("%d ConfigMaps in %s created in %s", n, ns, time.Since(t0).Round(time.Second))
		for _, sc := range scenarios() {
			if o.only != "" && !strings.Contains(sc.name(), o.only) {
				continue
			}
			for r := 1; r <= o.runs; r++ {
				res := measureOne(ctx, self, kubeconfig, ns, n, r, sc, o)
				if ctx.Err() != nil {
					return ctx.Err()
				}
				logf("  %-32s n=%d run %d: elected %.2fs, first reconcile %.2fs, all %.2fs; standby heap %.0f MiB, RSS %.0f MiB %s",
					sc.name(), n, r, res.Elected, res.First, res.All, res.Heap, res.RSS, res.Error)
				results = append(results, res)
			}
		}
	}
	load = load + " → " + loadAverage()
	return write(o, results, load)
}

// measureOne runs one scenario once.
func measureOne(ctx context.Context, self, kubeconfig, ns string, n, r int, sc scenario, o options) result {
	res := result{Scenario: sc.name(), Impl: sc.impl, Standby: "cold", Stop: sc.stop, Objects: n, Run: r}
	if sc.warm {
		res.Standby = "warm"
	}
	fail := func(err error) result { res.Error = err.Error(); return res }
	lease := strings.NewReplacer("/", "-").Replace(fmt.Sprintf("lease-%s-%d", sc.name(), r))
	start := func(identity string) (*replica, error) {
		return startReplica(ctx, self, kubeconfig, sc.impl,
			"-namespace", ns, "-lease", lease, "-identity", identity, "-n", strconv.Itoa(n),
			"-warm="+strconv.FormatBool(sc.warm), "-cold-settle", o.coldSettle.String())
	}
	leader, err := start("first")
	if err != nil {
		return fail(err)
	}
	defer leader.kill()
	if _, err := leader.wait("leading", 2*time.Minute); err != nil {
		return fail(fmt.Errorf("leader: %w", err))
	}
	if _, err := leader.wait("all", 15*time.Minute); err != nil {
		return fail(fmt.Errorf("leader: %w", err))
	}
	succ, err := start("second")
	if err != nil {
		return fail(err)
	}
	defer succ.kill()
	sb, err := succ.wait("standby", 15*time.Minute)
	if err != nil {
		return fail(fmt.Errorf("standby: %w", err))
	}
	res.Heap, res.RSS = sb.Heap/(1<<20), sb.RSS/(1<<20)
	// Let the standby settle as a follower (it has read the Lease, and
	// kubego's watches it) and land the signal at no particular point of
	// the renewal period.
	time.Sleep(3*time.Second + time.Duration(r*337)*time.Millisecond)
	sig := syscall.SIGTERM
	if sc.stop == "kill" {
		sig = syscall.SIGKILL
	}
	t0 := time.Now()
	if err := leader.cmd.Process.Signal(sig); err != nil {
		return fail(err)
	}
	since := func(e event) float64 { return time.Unix(0, e.At).Sub(t0).Seconds() }
	el, err := succ.wait("leading", 2*time.Minute)
	if err != nil {
		return fail(fmt.Errorf("successor: %w", err))
	}
	res.Elected = since(el)
	first, err := succ.wait("first", 15*time.Minute)
	if err != nil {
		return fail(fmt.Errorf("successor: %w", err))
	}
	res.First = since(first)
	all, err := succ.wait("all", 15*time.Minute)
	if err != nil {
		return fail(fmt.Errorf("successor: %w", err))
	}
	res.All = since(all)
	return res
}

// replica is a running replica process and the events it told.
type replica struct {
	cmd    *exec.Cmd
	stderr *tailBuffer
	exited chan struct{}

	mu     sync.Mutex
	events map[string]event
	got    chan struct{} // closed and replaced at each event
}

func startReplica(ctx context.Context, self, kubeconfig, impl string, args ...string) (*replica, error) {
	cmd := exec.CommandContext(ctx, self, append([]string{"-replica", impl}, args...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	r := &replica{cmd: cmd, stderr: &tailBuffer{}, exited: make(chan struct{}), events: map[string]event{}, got: make(chan struct{})}
	cmd.Stderr = r.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			var e event
			if json.Unmarshal(s.Bytes(), &e) != nil {
				continue
			}
			r.mu.Lock()
			r.events[e.Ev] = e
			close(r.got)
			r.got = make(chan struct{})
			r.mu.Unlock()
		}
		_ = cmd.Wait()
		close(r.exited)
	}()
	return r, nil
}

var errExited = errors.New("replica exited")

// wait returns the event ev once told, or an error after d or when the
// process has exited.
func (r *replica) wait(ev string, d time.Duration) (event, error) {
	deadline := time.After(d)
	for {
		r.mu.Lock()
		e, ok := r.events[ev]
		got := r.got
		r.mu.Unlock()
		if ok {
			return e, nil
		}
		select {
		case <-got:
		case <-r.exited:
			return event{}, fmt.Errorf("%w before %q: %s", errExited, ev, r.stderr.String())
		case <-deadline:
			return event{}, fmt.Errorf("no %q after %s: %s", ev, d, r.stderr.String())
		}
	}
}

func (r *replica) kill() {
	_ = r.cmd.Process.Kill()
	<-r.exited
}

// tailBuffer keeps the last 2 KiB written to it.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2048 {
		t.b = t.b[len(t.b)-2048:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// populate creates namespace ns holding n small ConfigMaps.
func populate(ctx context.Context, c *client.Client, ns string, n int) error {
	if _, err := client.Typed[*corev1.Namespace](c).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	cms := client.Typed[*corev1.ConfigMap](c).Namespace(ns)
	var done atomic.Int64
	return fixture.Parallel(ctx, n, 32, func(i int) error {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%06d", i), Labels: map[string]string{"app": "failover", "shard": strconv.Itoa(i % 16)}},
			Data:       map[string]string{"key": strings.Repeat("v", 64), "index": strconv.Itoa(i)},
		}
		_, err := cms.Create(ctx, cm, metav1.CreateOptions{})
		if err == nil || apierrors.IsAlreadyExists(err) {
			if d := done.Add(1); d%20000 == 0 {
				logf("populating %s: %d", ns, d)
			}
		}
		return err
	})
}

// loadAverage is the load averages for the report, "?" when unreadable.
func loadAverage() string {
	if l := fixture.LoadAverage(); l != "" {
		return l
	}
	return "?"
}
