package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSampleReadsNestedAndFlatResults(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		key        string
		want       float64
	}{
		{"nested metrics", `{"impl":"kubego","metrics":{"sync_seconds":1.5}}`, "sync_seconds", 1.5},
		{"flat workqueue line", `{"impl":"kubego","adds_per_sec":1000,"key":"string"}`, "adds_per_sec", 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := parseSample(tc.line)
			if err != nil {
				t.Fatal(err)
			}
			if s[tc.key] != tc.want {
				t.Fatalf("%s = %v, want %v", tc.key, s[tc.key], tc.want)
			}
		})
	}
}

func TestFinishComputesMedianRatiosAndTargets(t *testing.T) {
	rep := &report{Runs: 3, Pods: 10}
	for _, v := range []float64{1, 3, 2} {
		rep.add("sync", "kubego", sample{"sync_seconds": v})
	}
	for _, v := range []float64{4, 5, 6} {
		rep.add("sync", "client-go", sample{"sync_seconds": v})
	}
	rep.finish()
	if len(rep.Rows) != 1 {
		t.Fatalf("rows = %d, want 1", len(rep.Rows))
	}
	r := rep.Rows[0]
	if r.Kubego != 2 || r.ClientGo != 5 || r.Ratio != 0.4 || r.Met == nil || !*r.Met {
		t.Fatalf("row = %+v", r)
	}
	if tbl := rep.table(); !strings.Contains(tbl, "| sync | sync_seconds | 2 | 5 | 0.40 | ≤ 0.5 | yes |") {
		t.Fatalf("table:\n%s", tbl)
	}
	if svg := rep.svg(); !strings.Contains(svg, "<svg") {
		t.Fatal("no svg")
	}
}

func TestLabelerSamplesPairRoundsIntoBlocks(t *testing.T) {
	line := func(mode string, wall, cpu float64) string {
		return fmt.Sprintf(`{"mode":%q,"seconds":%g,"client_cpu_seconds":%g,"server_cpu_seconds":0}`, mode, wall, cpu)
	}
	tests := []struct {
		name    string
		lines   []string
		want    []sample
		wantErr bool
	}{
		{
			name: "a steady drift cancels within a block",
			// The server slows by 1 s per run; the labeler costs 10 % more.
			lines: []string{line("bare", 10, 20), line("labeler", 12, 22), line("labeler", 13, 22), line("bare", 13, 20), "summary line"},
			want:  []sample{{"labeler_seconds": 12.5, "bare_seconds": 11.5, "labeler_over_bare": 25.0 / 23, "labeler_over_bare_cpu": 1.1}},
		},
		{
			name:  "an odd last round is left out",
			lines: []string{line("bare", 10, 1), line("labeler", 11, 1), line("labeler", 11, 1), line("bare", 10, 1), line("bare", 10, 1), line("labeler", 30, 1)},
			want:  []sample{{"labeler_seconds": 11, "bare_seconds": 10, "labeler_over_bare": 1.1, "labeler_over_bare_cpu": 1}},
		},
		{
			name:    "one round is not enough",
			lines:   []string{line("bare", 10, 1), line("labeler", 11, 1)},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := labelerSamples(strings.Join(tt.lines, "\n"))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v", err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("samples %v, want %v", got, tt.want)
			}
			for i := range got {
				for k, v := range tt.want[i] {
					if math.Abs(got[i][k]-v) > 1e-9 {
						t.Errorf("block %d %s = %v, want %v", i, k, got[i][k], v)
					}
				}
			}
		})
	}
}

func TestTableShowsControllerRuntimeRowsInTheirOwnTable(t *testing.T) {
	rep := &report{Runs: 1, CRObjects: 5000}
	rep.add("sync", "kubego", sample{"sync_seconds": 1})
	rep.add("sync", "client-go", sample{"sync_seconds": 2})
	rep.add("cr-foo", "kubego", sample{"converge_seconds": 4, "requests_get": 0})
	rep.add("cr-foo", "client-go", sample{"converge_seconds": 10, "requests_get": 0})
	rep.finish()
	out := rep.table()
	first, second, ok := strings.Cut(out, "kubego vs controller-runtime v0.25.2")
	if !ok {
		t.Fatalf("no controller-runtime table in:\n%s", out)
	}
	if strings.Contains(first, "cr-foo") || !strings.Contains(first, "| sync | sync_seconds |") {
		t.Fatalf("the client-go table holds the wrong rows:\n%s", first)
	}
	if !strings.Contains(second, "| cr-foo | converge_seconds | 4 | 10.0 | 0.40 | ≤ 0.8 | yes |") {
		t.Fatalf("converge row missing or wrong in:\n%s", second)
	}
	if !strings.Contains(second, "| cr-foo | requests_get | 0 | 0 | — |") {
		t.Fatalf("a metric zero on both sides should have no ratio:\n%s", second)
	}
}

func TestKeptRowsAreJudgedByTodaysTargets(t *testing.T) {
	dir := t.TempDir()
	old := &report{Started: "then", Pods: 10}
	met := true
	old.Rows = []row{{Benchmark: "labeler", Metric: "labeler_over_bare", Kubego: 1.08, Target: "kubego ≤ 1.1", Met: &met}}
	if err := old.write(dir); err != nil {
		t.Fatal(err)
	}
	rep := &report{}
	rep.keep(filepath.Join(dir, "latest.json"))
	if len(rep.Rows) != 1 {
		t.Fatalf("rows = %+v", rep.Rows)
	}
	if r := rep.Rows[0]; r.Target != "kubego ≤ 1.05" || r.Met == nil || *r.Met {
		t.Fatalf("kept row = %+v (target %q), want judged by ≤ 1.05 and missed", r, r.Target)
	}
}

func TestKeptRowsKeepWhereTheyCameFrom(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "latest.json")
	first := &report{Started: "first", Pods: 20000, CRObjects: 5000,
		Kept: []string{"watch (run of zeroth, 20000 Pods)", "cr-foo, cr-labeler (run of earlier, 5000 objects)"}}
	for _, b := range []string{"sync", "watch", "cr-foo", "cr-labeler"} {
		first.Rows = append(first.Rows, row{Benchmark: b, Metric: "m"})
	}
	if err := first.write(dir); err != nil {
		t.Fatal(err)
	}
	// A second run re-runs cr-foo only, a third nothing of these.
	second := &report{Started: "second", Pods: 100000, CRObjects: 200, Rows: []row{{Benchmark: "cr-foo", Metric: "m"}}}
	second.keep(path)
	if err := second.write(dir); err != nil {
		t.Fatal(err)
	}
	third := &report{Started: "third", Pods: 3}
	third.keep(path)
	want := map[string]string{
		"sync":       "run of first, 20000 Pods",
		"watch":      "run of zeroth, 20000 Pods",
		"cr-labeler": "run of earlier, 5000 objects",
		"cr-foo":     "run of second, 200 objects",
	}
	for _, r := range third.Rows {
		if r.From != want[r.Benchmark] {
			t.Errorf("%s kept as from %q, want %q", r.Benchmark, r.From, want[r.Benchmark])
		}
	}
	if len(third.Rows) != 4 {
		t.Fatalf("rows = %+v", third.Rows)
	}
}
