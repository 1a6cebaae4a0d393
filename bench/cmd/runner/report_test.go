package main

import (
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
	if tbl := rep.table(); !strings.Contains(tbl, "| sync | sync_seconds | 2 | 5 | 0.40 | ≤ 0.7 | yes |") {
		t.Fatalf("table:\n%s", tbl)
	}
	if svg := rep.svg(); !strings.Contains(svg, "<svg") {
		t.Fatal("no svg")
	}
}
