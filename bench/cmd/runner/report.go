package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// sample is one process's measurements.
type sample map[string]float64

// row is one metric of one benchmark, compared.
type row struct {
	Benchmark string    `json:"benchmark"`
	Metric    string    `json:"metric"`
	Kubego    float64   `json:"kubego"`
	ClientGo  float64   `json:"client_go"`
	Ratio     float64   `json:"ratio"`
	Target    string    `json:"target,omitempty"`
	Met       *bool     `json:"met,omitempty"`
	KubegoAll []float64 `json:"kubego_runs"`
	CGAll     []float64 `json:"client_go_runs"`
	// Decoded is kubego with the cache representation of before compact
	// became the default (informer.SharedOptions.Decoded), measured in the
	// same run for the benchmarks of decodedColumn.
	Decoded    float64   `json:"kubego_decoded,omitempty"`
	DecodedAll []float64 `json:"kubego_decoded_runs,omitempty"`
	// From names the run a row kept from an earlier report was measured
	// in; empty for the rows of the report's own run.
	From string `json:"from,omitempty"`
}

type report struct {
	Started         string  `json:"started"`
	Seconds         float64 `json:"seconds"`
	PopulateSeconds float64 `json:"populate_seconds"`
	Runs            int     `json:"runs"`
	Pods            int     `json:"pods"`
	// CRObjects is the number of objects of each controller benchmark
	// against controller-runtime; their rows' client_go fields hold
	// controller-runtime's figures.
	CRObjects  int      `json:"cr_objects,omitempty"`
	GOMAXPROCS int      `json:"gomaxprocs"`
	LoadBefore string   `json:"loadavg_before"`
	LoadAfter  string   `json:"loadavg_after"`
	Rows       []row    `json:"rows"`
	Missing    []string `json:"missing,omitempty"`
	// Kept names the benchmarks whose rows were copied from an earlier
	// run (a run with -only keeps the rows it did not re-run).
	Kept []string `json:"kept,omitempty"`

	raw   map[string]map[string][]sample // benchmark → impl → runs
	order []string
}

// target is a performance target on a ratio (or, for the relist, on
// kubego's own value).
type target struct {
	text string
	ok   func(r row) bool
}

var targets = map[string]target{
	"sync/sync_seconds":             {"≤ 0.5", func(r row) bool { return r.Ratio <= 0.5 }},
	"sync/live_heap_mb":             {"≤ 0.3", func(r row) bool { return r.Ratio <= 0.3 }},
	"sync/peak_rss_mb":              {"≤ 0.35", func(r row) bool { return r.Ratio <= 0.35 }},
	"relist/relist_peak_heap_ratio": {"kubego ≤ 1.3", func(r row) bool { return r.Kubego <= 1.3 }},
	"workqueue/adds_per_sec":        {"≥ 2.0", func(r row) bool { return r.Ratio >= 2.0 }},
	"workqueue/bytes_per_add":       {"≤ 0.5", func(r row) bool { return r.Ratio <= 0.5 }},
	"labeler/labeler_over_bare":     {"kubego ≤ 1.05", func(r row) bool { return r.Kubego <= 1.05 }},
	"store/writes_per_sec":          {"≥ 100", func(r row) bool { return r.Ratio >= 100 }},
	"store/lists_per_sec":           {"≥ 1.0", func(r row) bool { return r.Ratio >= 1.0 }},
}

// The targets against controller-runtime, the same on both workloads.
func init() {
	for _, w := range crWorkloads {
		targets[w+"/converge_seconds"] = target{"≤ 0.8", func(r row) bool { return r.Ratio <= 0.8 }}
		targets[w+"/cpu_seconds"] = target{"≤ 0.5", func(r row) bool { return r.Ratio <= 0.5 }}
		targets[w+"/peak_rss_mb"] = target{"≤ 0.4", func(r row) bool { return r.Ratio <= 0.4 }}
		targets[w+"/requests_total"] = target{"≤ 1.0", func(r row) bool { return r.Ratio <= 1.0 }}
		if w == "cr-labeler" {
			targets[w+"/peak_rss_mb"] = target{"≤ 0.35", func(r row) bool { return r.Ratio <= 0.35 }}
		}
		targets[w+"/restart_seconds"] = target{"≤ 0.3", func(r row) bool { return r.Ratio <= 0.3 }}
		shown[w] = []string{
			"converge_seconds", "cpu_seconds", "peak_rss_mb", "live_heap_mb", "reconciles",
			"requests_total", "requests_list", "requests_watch", "requests_get", "requests_create", "requests_update", "requests_patch",
			"restart_seconds", "restart_cpu_seconds", "restart_reconciles",
		}
		// The kubego labeler reconciles nothing on a restart (its informer
		// holds only unlabeled Deployments): the cold start is the Foos'.
		if w == "cr-foo" {
			shown[w] = append(shown[w], "coldstart_seconds")
		}
	}
}

// shown lists, per benchmark, the metrics printed in the table (all are
// in the JSON).
var shown = map[string][]string{
	"sync":          {"sync_seconds", "live_heap_mb", "peak_rss_mb", "total_alloc_mb"},
	"sync-metadata": {"sync_seconds", "live_heap_mb", "peak_rss_mb", "total_alloc_mb"},
	"sync-dynamic":  {"sync_seconds", "live_heap_mb", "peak_rss_mb", "total_alloc_mb"},
	"relist":        {"relist_peak_heap_ratio", "relist_peak_live_ratio", "relist_seconds"},
	"watch":         {"watch_p50_ms", "watch_p99_ms", "watch_events_per_sec"},
	"list":          {"list_json_us_per_obj", "list_json_bytes_per_obj", "list_protobuf_us_per_obj", "list_protobuf_bytes_per_obj"},
	"workqueue":     {"adds_per_sec", "bytes_per_add", "cpu_ns_per_add"},
	"labeler":       {"labeler_over_bare", "labeler_over_bare_cpu", "labeler_seconds", "bare_seconds"},
	"decode": {
		"decode_json_ns_per_obj", "decode_json_bytes_per_obj", "decode_json_allocs_per_obj",
		"decode_protobuf_ns_per_obj", "decode_protobuf_bytes_per_obj", "decode_protobuf_allocs_per_obj",
		"clientset_json_ns_per_obj", "clientset_json_bytes_per_obj", "clientset_json_allocs_per_obj",
		"clientset_protobuf_ns_per_obj", "clientset_protobuf_bytes_per_obj", "clientset_protobuf_allocs_per_obj",
	},
	"store": {"writes_per_sec", "lists_per_sec", "writes_per_sec_namespace", "lists_per_sec_namespace", "writes_per_sec_idle"},
}

// ab runs a benchmark o.runs times per library, alternating kubego and
// client-go, each in a fresh process.
func (rep *report) ab(ctx context.Context, o options, name string, argv func(impl string) []string) error {
	return rep.abWith(ctx, o, name, argv, nil)
}

// decodedImpl names kubego run with KUBEGO_DECODED=1: its cache keeps
// decoded objects, the representation before compact became the default.
const decodedImpl = "kubego-decoded"

// decodedColumn holds the benchmarks whose cache representation matters,
// run a third time per round as decodedImpl. The dynamic and custom
// resource informers keep decoded objects either way and are left out.
var decodedColumn = map[string]bool{
	"sync": true, "sync-metadata": true, "relist": true, "watch": true,
	"sync-unique-pods": true, "sync-configmaps": true, "sync-secrets": true, "sync-endpointslices": true,
	"churn": true, "cr-labeler": true, "cr-foo": true,
}

// impls returns the libraries benchmark name runs, in round r's order.
func impls(name string) []string {
	out := []string{"kubego", "client-go"}
	if decodedColumn[name] || strings.HasPrefix(name, "scale-") {
		out = append(out, decodedImpl)
	}
	return out
}

// decodedEnv is the environment of a run of impl.
func decodedEnv(impl string) []string {
	if impl == decodedImpl {
		return []string{"KUBEGO_DECODED=1"}
	}
	return nil
}

// abWith is ab calling before (when not nil) before each run.
func (rep *report) abWith(ctx context.Context, o options, name string, argv func(impl string) []string, before func() error) error {
	for r := 1; r <= o.runs; r++ {
		for _, impl := range impls(name) {
			if before != nil {
				if err := before(); err != nil {
					return fmt.Errorf("%s %s run %d: preparing: %w", name, impl, r, err)
				}
			}
			args := argv(impl)
			if o.profile && impl == "kubego" && r == 1 && name != "workqueue" {
				base := filepath.Join(o.out, "profiles", name)
				args = append(args, "-cpuprofile", base+".cpu.pprof", "-memprofile", base+".heap.pprof")
			} else if o.profile && impl == "kubego" && r == 1 {
				args = append(args, "-cpuprofile", filepath.Join(o.out, "profiles", name+".cpu.pprof"))
			}
			logf("%s run %d/%d: %s", name, r, o.runs, impl)
			s, err := runOne(ctx, args, decodedEnv(impl))
			if err != nil {
				return fmt.Errorf("%s %s run %d: %w", name, impl, r, err)
			}
			logf("  %s", s.brief(shown[name]))
			rep.add(name, impl, s)
		}
	}
	return nil
}

func (rep *report) add(name, impl string, s sample) {
	if rep.raw == nil {
		rep.raw = map[string]map[string][]sample{}
	}
	if rep.raw[name] == nil {
		rep.raw[name] = map[string][]sample{}
		rep.order = append(rep.order, name)
	}
	rep.raw[name][impl] = append(rep.raw[name][impl], s)
}

func (s sample) brief(keys []string) string {
	var b strings.Builder
	for _, k := range keys {
		if v, ok := s[k]; ok {
			fmt.Fprintf(&b, "%s=%.4g ", k, v)
		}
	}
	return b.String()
}

// runOne runs one benchmark process and parses the last JSON line of its
// stdout: either {"metrics": {...}} or a flat object of numbers.
func runOne(ctx context.Context, argv, env []string) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%w: %s", err, tail(errb.String(), 2000))
	}
	var last string
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "{") {
			last = l
		}
	}
	if last == "" {
		return nil, fmt.Errorf("no JSON result on stdout; stderr: %s", tail(errb.String(), 2000))
	}
	return parseSample(last)
}

func parseSample(line string) (sample, error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		return nil, err
	}
	src := m
	if inner, ok := m["metrics"].(map[string]any); ok {
		src = inner
	}
	s := sample{}
	for k, v := range src {
		if f, ok := v.(float64); ok {
			s[k] = f
		}
	}
	return s, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// labeler runs bench/labeler (kubego only: the labeler controller against
// a bare update loop on the same client, on its own control plane). Its
// rounds alternate which mode goes first, and each sample is a block of
// two rounds (bare, labeler, labeler, bare): the control plane's speed
// drifts over its life by more than the difference measured, and a block
// cancels a steady drift where a single round charges it to whichever
// mode ran second. Single runs vary by ±10 %, so it runs o.runs blocks.
func (rep *report) labeler(ctx context.Context, o options, bin string) error {
	rounds := 2 * o.runs
	logf("labeler: %d Deployments, %d rounds (its own control plane)", o.labelerN, rounds)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-n", fmt.Sprint(o.labelerN), "-rounds", fmt.Sprint(rounds))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: %s", err, tail(errb.String(), 1500))
	}
	samples, runs, err := labelerSamples(out.String())
	if err != nil {
		return err
	}
	for _, s := range samples {
		rep.add("labeler", "kubego", s)
	}
	for _, r := range runs {
		logf("  %s", r)
	}
	return nil
}

// labelerSamples reads bench/labeler's JSON lines (rounds alternating
// bare, labeler / labeler, bare) and returns one sample per block of two
// rounds, plus a line per round for the log.
func labelerSamples(out string) ([]sample, []string, error) {
	type run struct{ wall, cpu float64 }
	var bare, ctl []run
	for _, l := range strings.Split(out, "\n") {
		var r struct {
			Mode      string  `json:"mode"`
			Seconds   float64 `json:"seconds"`
			ClientCPU float64 `json:"client_cpu_seconds"`
			ServerCPU float64 `json:"server_cpu_seconds"`
		}
		if json.Unmarshal([]byte(l), &r) != nil {
			continue
		}
		switch r.Mode {
		case "bare":
			bare = append(bare, run{r.Seconds, r.ClientCPU + r.ServerCPU})
		case "labeler":
			ctl = append(ctl, run{r.Seconds, r.ClientCPU + r.ServerCPU})
		}
	}
	n := min(len(bare), len(ctl))
	if n < 2 {
		return nil, nil, fmt.Errorf("fewer than two rounds in its output: %s", tail(out, 500))
	}
	var samples []sample
	for i := 0; i+1 < n; i += 2 {
		b, c := bare[i:i+2], ctl[i:i+2]
		samples = append(samples, sample{
			"labeler_seconds":       (c[0].wall + c[1].wall) / 2,
			"bare_seconds":          (b[0].wall + b[1].wall) / 2,
			"labeler_over_bare":     (c[0].wall + c[1].wall) / (b[0].wall + b[1].wall),
			"labeler_over_bare_cpu": (c[0].cpu + c[1].cpu) / (b[0].cpu + b[1].cpu),
		})
	}
	var lines []string
	for i := range n {
		lines = append(lines, fmt.Sprintf("round %d: labeler %.2fs (%.1f cpu-s), bare %.2fs (%.1f cpu-s)", i, ctl[i].wall, ctl[i].cpu, bare[i].wall, bare[i].cpu))
	}
	return samples, lines, nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// finish computes the rows: medians per library and their ratio.
func (rep *report) finish() {
	for _, name := range rep.order {
		byImpl := rep.raw[name]
		keys := map[string]bool{}
		for _, ss := range byImpl {
			for _, s := range ss {
				for k := range s {
					keys[k] = true
				}
			}
		}
		metrics := append([]string(nil), shown[name]...)
		var extra []string
		for k := range keys {
			if !contains(metrics, k) {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		for _, k := range append(metrics, extra...) {
			if !keys[k] {
				continue
			}
			var a, b, d []float64
			for _, s := range byImpl[decodedImpl] {
				if v, ok := s[k]; ok {
					d = append(d, v)
				}
			}
			for _, s := range byImpl["kubego"] {
				if v, ok := s[k]; ok {
					a = append(a, v)
				}
			}
			for _, s := range byImpl["client-go"] {
				if v, ok := s[k]; ok {
					b = append(b, v)
				}
			}
			r := row{Benchmark: name, Metric: k, Kubego: median(a), ClientGo: median(b), KubegoAll: a, CGAll: b, Decoded: median(d), DecodedAll: d}
			if len(b) > 0 && r.ClientGo != 0 {
				r.Ratio = r.Kubego / r.ClientGo
			}
			if t, ok := targets[name+"/"+k]; ok {
				r.Target = t.text
				met := t.ok(r)
				r.Met = &met
			}
			rep.Rows = append(rep.Rows, r)
		}
	}
}

// order is the benchmarks' order in the table.
var order = []string{"sync", "sync-metadata", "sync-dynamic", "relist", "watch", "list", "decode", "workqueue", "store", "labeler", "cr-coldstart", "cr-labeler", "cr-foo"}

// keep copies into rep the rows of the earlier report at path for the
// benchmarks rep did not run, and sorts the rows into table order. A
// missing or unreadable earlier report keeps nothing.
func (rep *report) keep(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var old report
	if json.Unmarshal(b, &old) != nil {
		return
	}
	ran := map[string]bool{}
	for _, r := range rep.Rows {
		ran[r.Benchmark] = true
	}
	// Where the old report's rows come from: its own run, or for the rows
	// it kept, what it says of them (rows of reports older than the From
	// field are named only in its Kept list).
	from := map[string]string{}
	for _, k := range old.Kept {
		names, src, ok := strings.Cut(k, " (")
		if !ok {
			continue
		}
		for name := range strings.SplitSeq(names, ", ") {
			from[name] = strings.TrimSuffix(src, ")")
		}
	}
	kept := map[string]bool{}
	for _, r := range old.Rows {
		if ran[r.Benchmark] {
			continue
		}
		switch {
		case r.From != "":
		case from[r.Benchmark] != "":
			r.From = from[r.Benchmark]
		case isCR(r.Benchmark):
			r.From = fmt.Sprintf("run of %s, %d objects", old.Started, old.CRObjects)
		default:
			r.From = fmt.Sprintf("run of %s, %d Pods", old.Started, old.Pods)
		}
		// Judge the kept row by today's targets, not those of its day.
		r.Target, r.Met = "", nil
		if t, ok := targets[r.Benchmark+"/"+r.Metric]; ok {
			met := t.ok(r)
			r.Target, r.Met = t.text, &met
		}
		rep.Rows = append(rep.Rows, r)
		if contains(crWorkloads, r.Benchmark) && rep.CRObjects == 0 {
			rep.CRObjects = old.CRObjects
		}
		if !kept[r.Benchmark] {
			kept[r.Benchmark] = true
			rep.Kept = append(rep.Kept, fmt.Sprintf("%s (%s)", r.Benchmark, r.From))
		}
	}
	rank := func(b string) int {
		for i, o := range order {
			if o == b {
				return i
			}
		}
		return len(order)
	}
	sort.SliceStable(rep.Rows, func(i, j int) bool { return rank(rep.Rows[i].Benchmark) < rank(rep.Rows[j].Benchmark) })
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// table renders the shown rows as Markdown.
func (rep *report) table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nkubego vs client-go v0.37.2 — %d Pods, medians of %d runs each, GOMAXPROCS %d, load average %s → %s, %.0f s total\n\n",
		rep.Pods, rep.Runs, rep.GOMAXPROCS, rep.LoadBefore, rep.LoadAfter, rep.Seconds)
	if slices.ContainsFunc(rep.Rows, func(r row) bool { return !isCR(r.Benchmark) }) {
		rep.rows(&b, "client-go", func(r row) bool { return !isCR(r.Benchmark) })
	}
	if slices.ContainsFunc(rep.Rows, func(r row) bool { return isCR(r.Benchmark) }) {
		fmt.Fprintf(&b, "\nkubego vs controller-runtime v0.25.2 (client-go v0.37.2) — %d objects per workload (cr-coldstart: its objects row)\n\n", rep.CRObjects)
		rep.rows(&b, "controller-runtime", func(r row) bool { return isCR(r.Benchmark) })
	}
	if len(rep.Kept) > 0 {
		fmt.Fprintf(&b, "\nkept from earlier runs: %s\n", strings.Join(rep.Kept, "; "))
	}
	for _, m := range rep.Missing {
		fmt.Fprintf(&b, "\nmissing: %s\n", m)
	}
	return b.String()
}

// rows renders the shown rows that pass keep, against the library named
// other (the second column).
func (rep *report) rows(b *strings.Builder, other string, keep func(row) bool) {
	decoded := slices.ContainsFunc(rep.Rows, func(r row) bool { return keep(r) && len(r.DecodedAll) > 0 })
	if decoded {
		fmt.Fprintf(b, "| benchmark | metric | kubego | %[1]s | kubego/%[1]s | target | met | kubego decoded | decoded/%[1]s |\n|---|---|---:|---:|---:|---|---|---:|---:|\n", other)
	} else {
		fmt.Fprintf(b, "| benchmark | metric | kubego | %[1]s | kubego/%[1]s | target | met |\n|---|---|---:|---:|---:|---|---|\n", other)
	}
	for _, r := range rep.Rows {
		if !contains(shown[r.Benchmark], r.Metric) || !keep(r) {
			continue
		}
		cg, ratio := fmtNum(r.ClientGo), fmt.Sprintf("%.2f", r.Ratio)
		if r.ClientGo == 0 {
			ratio = "—"
		}
		if len(r.CGAll) == 0 {
			cg, ratio = "—", "—"
		}
		met := ""
		if r.Met != nil {
			met = map[bool]string{true: "yes", false: "**no**"}[*r.Met]
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |", r.Benchmark, r.Metric, fmtNum(r.Kubego), cg, ratio, r.Target, met)
		if decoded {
			d, dr := "—", "—"
			if len(r.DecodedAll) > 0 {
				d = fmtNum(r.Decoded)
				if len(r.CGAll) > 0 && r.ClientGo != 0 {
					dr = fmt.Sprintf("%.2f", r.Decoded/r.ClientGo)
				}
			}
			fmt.Fprintf(b, " %s | %s |", d, dr)
		}
		b.WriteString("\n")
	}
}

func fmtNum(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

func (rep *report) write(dir string) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "latest.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "latest.md"), []byte(rep.table()), 0o644); err != nil {
		return err
	}
	if err := rep.writeScaleSVG(dir); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "latest.svg"), []byte(rep.svg()), 0o644)
}

// registerRows registers the tables of the rows a report read from JSON
// holds that the runner registers only when it runs them (the scale
// counts).
func (rep *report) registerRows() {
	var counts []int
	for _, r := range rep.Rows {
		s, ok := strings.CutPrefix(r.Benchmark, "scale-")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(s)
		if err == nil && !slices.Contains(counts, n) && shown[r.Benchmark] == nil {
			counts = append(counts, n)
		}
	}
	slices.Sort(counts)
	registerScale(counts)
}

// rerender rewrites latest.md and latest.svg of dir from its latest.json,
// and the generated sections of the documents under docs (none when empty).
func rerender(dir, docs string) error {
	b, err := os.ReadFile(filepath.Join(dir, "latest.json"))
	if err != nil {
		return err
	}
	var rep report
	if err := json.Unmarshal(b, &rep); err != nil {
		return err
	}
	rep.registerRows()
	if err := rep.write(dir); err != nil {
		return err
	}
	if docs == "" {
		return nil
	}
	return rep.updateDocs(docs)
}
