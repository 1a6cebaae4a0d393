// Command runner is `make bench`: it starts one local control plane
// (testenv), populates it, then runs every benchmark of the suite for
// kubego and client-go v0.37.2, each run in a fresh process, alternating
// kubego and client-go, and prints a table of medians and ratios
// (kubego / client-go). It writes results/latest.json and results/latest.svg.
//
//	go run ./cmd/runner -runs 3 -pods 20000
//	go run ./cmd/runner -runs 1 -pods 2000 -profile
//
// Population is not cached between invocations: the control plane's etcd
// lives in a temporary directory and the runner re-creates the objects
// (concurrently; about a minute for 20,000 Pods on two cores). Caching an
// etcd data directory would tie the suite to etcd's on-disk format and to
// a second etcd start path for little gain.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kubego/kubego/bench/internal/faultproxy"
	"github.com/kubego/kubego/testenv"
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

type options struct {
	runs, pods, wqKeys, labelerN int
	profile                      bool
	only                         string
	out                          string
}

func main() {
	var o options
	flag.IntVar(&o.runs, "runs", envInt("BENCH_RUNS", 3), "runs per library and benchmark (env BENCH_RUNS)")
	flag.IntVar(&o.pods, "pods", envInt("BENCH_PODS", 20000), "Pods to populate (env BENCH_PODS)")
	flag.IntVar(&o.wqKeys, "wq-keys", envInt("BENCH_WQ_KEYS", 1_000_000), "workqueue keys (env BENCH_WQ_KEYS)")
	flag.IntVar(&o.labelerN, "labeler-n", envInt("BENCH_LABELER_N", 0), "Deployments for the labeler (default: 5000, or pods/4 when fewer than 20000 pods)")
	flag.BoolVar(&o.profile, "profile", os.Getenv("PROFILE") != "" && os.Getenv("PROFILE") != "0", "save CPU and heap profiles of the kubego side (env PROFILE=1)")
	flag.StringVar(&o.only, "only", os.Getenv("BENCH_ONLY"), "comma-separated benchmark names to run (env BENCH_ONLY); empty runs all")
	flag.StringVar(&o.out, "out", "results", "directory for latest.json, latest.svg and profiles")
	flag.Parse()
	if o.labelerN == 0 {
		o.labelerN = 5000
		if o.pods < 20000 {
			o.labelerN = max(o.pods/4, 100)
		}
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "runner:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().UTC().Format("15:04:05")}, args...)...)
}

func run(ctx context.Context, o options) error {
	began := time.Now()
	tmp, err := os.MkdirTemp("", "kubego-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.MkdirAll(filepath.Join(o.out, "profiles"), 0o755); err != nil {
		return err
	}

	bins, err := build(ctx, tmp)
	if err != nil {
		return err
	}

	logf("starting the control plane")
	cp, err := testenv.Start(ctx, testenv.Options{Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	if err != nil {
		return err
	}
	stopped := false
	stopCP := func() {
		if !stopped {
			stopped = true
			cp.Stop()
		}
	}
	defer stopCP()
	kubeconfig := filepath.Join(tmp, "kubeconfig")
	if err := cp.WriteKubeconfig(kubeconfig); err != nil {
		return err
	}
	t0 := time.Now()
	if err := populate(ctx, cp.Config(), o.pods); err != nil {
		return fmt.Errorf("populating: %w", err)
	}
	populateTime := time.Since(t0)
	logf("populated %d Pods and the ConfigMaps in %s", o.pods, populateTime.Round(time.Second))

	proxy, err := faultproxy.Start(cp.Config())
	if err != nil {
		return err
	}
	defer proxy.Close()
	proxyKubeconfig := filepath.Join(tmp, "proxy-kubeconfig")
	if err := proxy.WriteKubeconfig(proxyKubeconfig); err != nil {
		return err
	}

	want := func(name string) bool {
		if o.only == "" {
			return true
		}
		for _, s := range strings.Split(o.only, ",") {
			if strings.TrimSpace(s) == name {
				return true
			}
		}
		return false
	}
	rep := &report{Runs: o.runs, Pods: o.pods, GOMAXPROCS: runtime.GOMAXPROCS(0), Started: began.UTC().Format(time.RFC3339), LoadBefore: loadavg()}
	common := []string{"-kubeconfig", kubeconfig}
	for _, sc := range []string{"sync", "sync-metadata", "sync-dynamic", "relist", "watch", "list"} {
		if !want(sc) {
			continue
		}
		args := append([]string{"-scenario", sc}, common...)
		if sc == "relist" {
			args = append(args, "-proxy-kubeconfig", proxyKubeconfig, "-proxy-control", proxy.ControlURL())
		}
		if err := rep.ab(ctx, o, sc, func(impl string) []string { return append([]string{bins[impl]}, args...) }); err != nil {
			return err
		}
	}
	if want("workqueue") {
		if err := rep.ab(ctx, o, "workqueue", func(impl string) []string {
			return []string{bins["workqueue"], "-impl", impl, "-keys", strconv.Itoa(o.wqKeys)}
		}); err != nil {
			return err
		}
	}
	// The labeler starts a control plane of its own: stop ours first so
	// that two apiservers do not compete for the CPUs.
	stopCP()
	proxy.Close()
	if want("labeler") {
		if bins["labeler"] == "" {
			rep.Missing = append(rep.Missing, "labeler (bench/labeler not present)")
		} else if err := rep.labeler(ctx, o, bins["labeler"]); err != nil {
			logf("labeler failed: %v", err)
			rep.Missing = append(rep.Missing, "labeler (failed: "+err.Error()+")")
		}
	}
	rep.Seconds = time.Since(began).Seconds()
	rep.PopulateSeconds = populateTime.Seconds()
	rep.LoadAfter = loadavg()
	rep.finish()
	fmt.Print(rep.table())
	if err := rep.write(o.out); err != nil {
		return err
	}
	logf("wrote %s/latest.json and %s/latest.svg in %s total", o.out, o.out, time.Since(began).Round(time.Second))
	return nil
}

// build compiles one binary per library (scenario chosen by flag) plus the
// workqueue and labeler binaries.
func build(ctx context.Context, dir string) (map[string]string, error) {
	bins := map[string]string{
		"kubego":    filepath.Join(dir, "kubego"),
		"client-go": filepath.Join(dir, "client-go"),
		"workqueue": filepath.Join(dir, "workqueue"),
	}
	pkgs := map[string]string{"kubego": "./informer/kubego", "client-go": "./informer/clientgo", "workqueue": "./workqueue"}
	if _, err := os.Stat("labeler/main.go"); err == nil {
		bins["labeler"] = filepath.Join(dir, "labeler")
		pkgs["labeler"] = "./labeler"
	}
	for name, pkg := range pkgs {
		logf("building %s", pkg)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bins[name], pkg)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			if name == "labeler" {
				logf("labeler does not build, skipping it: %v", err)
				delete(bins, "labeler")
				continue
			}
			return nil, fmt.Errorf("building %s: %w", pkg, err)
		}
	}
	return bins, nil
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
