// Command runner is `make bench`: it starts one local control plane
// (testenv), populates it, then runs every benchmark of the suite for
// kubego and client-go v0.37.2, each run in a fresh process, alternating
// kubego and client-go, and prints a table of medians and ratios
// (kubego / client-go). It writes results/latest.json and results/latest.svg.
//
//	go run ./cmd/runner -runs 3 -pods 20000
//	go run ./cmd/runner -runs 1 -pods 2000 -profile
//	go run ./cmd/runner -only decode,store -runs 3
//
// With -only, only the wanted benchmarks' binaries are built, the control
// plane is started only if one of them needs it (the server benchmarks, and
// decode to capture its LIST bodies), and the rows of the other benchmarks
// are kept from the previous results/latest.json (the table names them).
//
// The controller benchmarks cr-labeler and cr-foo (controllers.go) compare
// kubego with controller-runtime v0.25 instead, on a control plane of their
// own, with -cr-n objects each (env BENCH_CR_N, 5000), and so does the cold
// start cr-coldstart (coldstart.go: -cold-n Foos, env BENCH_COLD_N, 20000). With -render the
// runner runs nothing and only re-renders latest.md and latest.svg from
// latest.json.
//
// The shapes rows (shapes.go) sync populations in which no value recurs
// (unique Pods, 1–10 KiB ConfigMaps and Secrets, EndpointSlices, a custom
// resource read as JSON) and measure an informer under a steady stream of
// new Events (churn); the scale rows sync the suite's Pods at each count of
// -scale and the runner draws results/scale.svg from them.
//
// The decode and store benchmarks run after the control plane has stopped:
// decode decodes a LIST page (-decode-page Pods, 500 by default) captured
// once from the populated server, in JSON and protobuf (package
// bench/decode); store loads an informer's store with 10,000 Pods and 10
// listing goroutines (package bench/store).
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
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kubego/kubego/bench/internal/faultproxy"
	"github.com/kubego/kubego/bench/internal/fixture"
	"github.com/kubego/kubego/rest"
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
	crN, coldN                   int
	decodePage, storeObjects     int
	storeWindow                  time.Duration
	profile                      bool
	only                         string
	out                          string
	docs                         string
	// The shapes and the scale curve (shapes.go).
	shapeN, churnRate int
	churnWindow       time.Duration
	scale             []int
}

func main() {
	var o options
	flag.IntVar(&o.runs, "runs", envInt("BENCH_RUNS", 3), "runs per library and benchmark (env BENCH_RUNS)")
	flag.IntVar(&o.pods, "pods", envInt("BENCH_PODS", 20000), "Pods to populate (env BENCH_PODS)")
	flag.IntVar(&o.wqKeys, "wq-keys", envInt("BENCH_WQ_KEYS", 1_000_000), "workqueue keys (env BENCH_WQ_KEYS)")
	flag.IntVar(&o.labelerN, "labeler-n", envInt("BENCH_LABELER_N", 0), "Deployments for the labeler (default: 5000, or pods/4 when fewer than 20000 pods)")
	flag.IntVar(&o.crN, "cr-n", envInt("BENCH_CR_N", 5000), "objects of the controller benchmarks against controller-runtime (env BENCH_CR_N; 20000 for the issue's cold start)")
	flag.IntVar(&o.coldN, "cold-n", envInt("BENCH_COLD_N", 20000), "Foos of the cold-start row cr-coldstart (env BENCH_COLD_N)")
	flag.IntVar(&o.decodePage, "decode-page", envInt("BENCH_DECODE_PAGE", 500), "Pods in the LIST page the decode benchmark decodes (env BENCH_DECODE_PAGE)")
	flag.IntVar(&o.storeObjects, "store-objects", envInt("BENCH_STORE_OBJECTS", 10000), "cached Pods of the store benchmark (env BENCH_STORE_OBJECTS)")
	flag.DurationVar(&o.storeWindow, "store-window", 5*time.Second, "measurement window of each loaded phase of the store benchmark")
	flag.BoolVar(&o.profile, "profile", os.Getenv("PROFILE") != "" && os.Getenv("PROFILE") != "0", "save CPU and heap profiles of the kubego side (env PROFILE=1)")
	flag.StringVar(&o.only, "only", os.Getenv("BENCH_ONLY"), "comma-separated benchmark names to run (env BENCH_ONLY); empty runs all")
	flag.StringVar(&o.out, "out", "results", "directory for latest.json, latest.svg and profiles")
	flag.StringVar(&o.docs, "docs", "..", "repository root whose README.md and docs/performance.md get the generated tables; empty writes none")
	flag.IntVar(&o.shapeN, "shape-n", envInt("BENCH_SHAPE_N", 5000), "objects of each shape other than the unique Pods, which are -pods (env BENCH_SHAPE_N)")
	flag.IntVar(&o.churnRate, "churn-rate", envInt("BENCH_CHURN_RATE", 200), "Events created per second during the churn row (env BENCH_CHURN_RATE)")
	flag.DurationVar(&o.churnWindow, "churn-window", 10*time.Second, "how long each churn run counts the Events handled")
	scale := flag.String("scale", envString("BENCH_SCALE", "2000,20000"), "Pod counts of the scale curve (env BENCH_SCALE; 100000 takes minutes and ~300 MB in etcd)")
	render := flag.Bool("render", false, "only re-render latest.md and latest.svg from latest.json (after editing it by hand)")
	flag.Parse()
	if *render {
		if err := rerender(o.out, o.docs); err != nil {
			fmt.Fprintln(os.Stderr, "runner:", err)
			os.Exit(1)
		}
		return
	}
	var err error
	if o.scale, err = parseScale(*scale); err != nil {
		fmt.Fprintln(os.Stderr, "runner:", err)
		os.Exit(2)
	}
	registerScale(o.scale)
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

	bins, err := build(ctx, o, tmp, want)
	if err != nil {
		return err
	}

	// The control plane is needed by the server benchmarks and to capture
	// the decode benchmark's bodies.
	var (
		kubeconfig, proxyKubeconfig string
		decodeJSON, decodePB        string
		populateTime                time.Duration
		proxy                       *faultproxy.Proxy
		cpConfig                    *rest.Config
		stopCP                      = func() {}
	)
	if slices.ContainsFunc(informerBenchmarks(o), want) || want("decode") {
		logf("starting the control plane")
		cp, err := testenv.Start(ctx, testenv.Options{Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))})
		if err != nil {
			return err
		}
		stopped := false
		stopCP = func() {
			if !stopped {
				stopped = true
				cp.Stop()
			}
		}
		defer stopCP()
		kubeconfig = filepath.Join(tmp, "kubeconfig")
		if err := cp.WriteKubeconfig(kubeconfig); err != nil {
			return err
		}
		t0 := time.Now()
		if err := populate(ctx, cp.Config(), o.pods); err != nil {
			return fmt.Errorf("populating: %w", err)
		}
		logf("populated %d Pods and the ConfigMaps in %s", o.pods, time.Since(t0).Round(time.Second))
		if err := populateShapes(ctx, cp.Config(), o, want); err != nil {
			return fmt.Errorf("populating: %w", err)
		}
		populateTime = time.Since(t0)
		cpConfig = cp.Config()

		if want("decode") {
			if decodeJSON, decodePB, err = captureList(ctx, cp.Config(), tmp, o.decodePage); err != nil {
				return err
			}
		}

		if proxy, err = faultproxy.Start(cp.Config()); err != nil {
			return err
		}
		defer proxy.Close()
		proxyKubeconfig = filepath.Join(tmp, "proxy-kubeconfig")
		if err := proxy.WriteKubeconfig(proxyKubeconfig); err != nil {
			return err
		}
	}

	rep := &report{Runs: o.runs, Pods: o.pods, GOMAXPROCS: runtime.GOMAXPROCS(0), Started: began.UTC().Format(time.RFC3339), LoadBefore: fixture.LoadAverage()}
	common := []string{"-kubeconfig", kubeconfig}
	for _, sc := range serverBenchmarks {
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
	if err := rep.runShapes(ctx, o, want, bins, kubeconfig, cpConfig); err != nil {
		return err
	}
	if want("workqueue") {
		if err := rep.ab(ctx, o, "workqueue", func(impl string) []string {
			return []string{bins["workqueue"], "-impl", impl, "-keys", strconv.Itoa(o.wqKeys)}
		}); err != nil {
			return err
		}
	}
	// The decode and store benchmarks need no server, and the labeler
	// starts a control plane of its own: stop ours first so that an idle
	// apiserver and etcd do not compete for the CPUs.
	stopCP()
	if proxy != nil {
		proxy.Close()
	}
	if want("decode") {
		if err := rep.ab(ctx, o, "decode", func(impl string) []string {
			return []string{bins["decode-"+impl], "-json", decodeJSON, "-protobuf", decodePB}
		}); err != nil {
			return err
		}
	}
	if want("store") {
		if err := rep.ab(ctx, o, "store", func(impl string) []string {
			return []string{bins["store-"+impl], "-objects", strconv.Itoa(o.storeObjects), "-window", o.storeWindow.String()}
		}); err != nil {
			return err
		}
	}
	if want("labeler") {
		if bins["labeler"] == "" {
			rep.Missing = append(rep.Missing, "labeler (bench/labeler not present)")
		} else if err := rep.labeler(ctx, o, bins["labeler"]); err != nil {
			logf("labeler failed: %v", err)
			rep.Missing = append(rep.Missing, "labeler (failed: "+err.Error()+")")
		}
	}
	if slices.ContainsFunc(crBenchmarks(), want) {
		if !allControllerBinaries(bins) {
			rep.Missing = append(rep.Missing, "controller benchmarks (bench/controllers did not build)")
		} else if err := rep.controllers(ctx, o, bins, want); err != nil {
			logf("controller benchmarks failed: %v", err)
			rep.Missing = append(rep.Missing, "controller benchmarks (failed: "+err.Error()+")")
		}
	}
	rep.Seconds = time.Since(began).Seconds()
	rep.PopulateSeconds = populateTime.Seconds()
	rep.LoadAfter = fixture.LoadAverage()
	rep.finish()
	if o.only != "" {
		rep.keep(filepath.Join(o.out, "latest.json"))
		// Kept scale rows of counts this run did not measure are shown
		// as -render shows them.
		rep.registerRows()
	}
	fmt.Print(rep.table())
	if err := rep.write(o.out); err != nil {
		return err
	}
	if o.docs != "" {
		if err := rep.updateDocs(o.docs); err != nil {
			return err
		}
	}
	logf("wrote %s/latest.json and %s/latest.svg in %s total", o.out, o.out, time.Since(began).Round(time.Second))
	return nil
}

// binaries names the binaries of each benchmark and their packages.
var binaries = map[string]map[string]string{
	"informer":    {"kubego": "./informer/kubego", "client-go": "./informer/clientgo"},
	"workqueue":   {"workqueue": "./workqueue"},
	"labeler":     {"labeler": "./labeler"},
	"decode":      {"decode-kubego": "./decode/kubego", "decode-client-go": "./decode/clientgo"},
	"store":       {"store-kubego": "./store/kubego", "store-client-go": "./store/clientgo"},
	"controllers": {"ctl-kubego": "./controllers/kubego", "ctl-controller-runtime": "./controllers/ctrlruntime"},
}

// allControllerBinaries reports whether bins holds every controller
// binary.
func allControllerBinaries(bins map[string]string) bool {
	for _, impl := range []string{"kubego", "controller-runtime"} {
		for _, w := range ctlWorkloads {
			if bins[controllerBinary(impl, w)] == "" {
				return false
			}
		}
	}
	return true
}

// controllerBinary names the binary of one library ("kubego",
// "controller-runtime") built for one workload ("labeler", "foo"): each
// controller binary is built once per workload with the tag
// <workload>_only, so that it links only that workload's code, as a
// program running one controller would.
func controllerBinary(impl, workload string) string { return "ctl-" + impl + "-" + workload }

// ctlWorkloads are the workloads of the controller binaries.
var ctlWorkloads = []string{"labeler", "foo"}

// serverBenchmarks run against the populated control plane.
var serverBenchmarks = []string{"sync", "sync-metadata", "sync-dynamic", "relist", "watch", "list"}

// informerBenchmarks are the benchmarks run by the informer binaries:
// serverBenchmarks, the shapes and the scale curve.
func informerBenchmarks(o options) []string {
	names := append(slices.Clone(serverBenchmarks), shapeNames()...)
	for _, n := range o.scale {
		names = append(names, scaleName(n))
	}
	return names
}

// build compiles the binaries of the wanted benchmarks. A labeler that is
// absent, or a labeler or controller binary that does not build, is
// skipped; any other failure is an error.
func build(ctx context.Context, o options, dir string, want func(string) bool) (map[string]string, error) {
	bins := map[string]string{}
	for group, pkgs := range binaries {
		wanted := want(group)
		if group == "informer" {
			wanted = slices.ContainsFunc(informerBenchmarks(o), want)
		}
		if group == "controllers" {
			wanted = slices.ContainsFunc(crBenchmarks(), want)
		}
		if !wanted {
			continue
		}
		for name, pkg := range pkgs {
			if group == "controllers" {
				impl := strings.TrimPrefix(name, "ctl-")
				for _, w := range ctlWorkloads {
					bin := filepath.Join(dir, controllerBinary(impl, w))
					logf("building %s for the %s workload", pkg, w)
					cmd := exec.CommandContext(ctx, "go", "build", "-tags", w+"_only", "-o", bin, pkg)
					cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
					if err := cmd.Run(); err != nil {
						logf("%s does not build, skipping it: %v", pkg, err)
						continue
					}
					bins[controllerBinary(impl, w)] = bin
				}
				continue
			}
			if group == "labeler" {
				if _, err := os.Stat("labeler/main.go"); err != nil {
					continue
				}
			}
			logf("building %s", pkg)
			bin := filepath.Join(dir, name)
			cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg)
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			if err := cmd.Run(); err != nil {
				if group == "labeler" || group == "controllers" {
					logf("%s does not build, skipping it: %v", pkg, err)
					continue
				}
				return nil, fmt.Errorf("building %s: %w", pkg, err)
			}
			bins[name] = bin
		}
	}
	// The decoded column runs the kubego informer binary with
	// KUBEGO_DECODED=1 (see impls).
	bins[decodedImpl] = bins["kubego"]
	return bins, nil
}
