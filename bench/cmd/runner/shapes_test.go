package main

import (
	"slices"
	"strings"
	"testing"
)

func TestParseScaleSortsAndRefusesNonCounts(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{in: "20000, 2000,100000", want: []int{2000, 20000, 100000}},
		{in: "2000,2000,", want: []int{2000}},
		{in: "", want: nil},
		{in: "2k", wantErr: true},
		{in: "0", wantErr: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseScale(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v", err)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestShapeRowsCarryTheirTargets(t *testing.T) {
	rep := &report{Runs: 1}
	rep.add("sync-secrets", "kubego", sample{"sync_seconds": 1, "live_heap_mb": 8.5, "total_alloc_mb": 4})
	rep.add("sync-secrets", "client-go", sample{"sync_seconds": 2, "live_heap_mb": 10, "total_alloc_mb": 10})
	rep.finish()
	met := map[string]bool{}
	for _, r := range rep.Rows {
		if r.Met != nil {
			met[r.Metric] = *r.Met
		}
	}
	want := map[string]bool{"sync_seconds": true, "live_heap_mb": false, "total_alloc_mb": true}
	for m, w := range want {
		if got, ok := met[m]; !ok || got != w {
			t.Errorf("%s met = %v (present %v), want %v", m, got, ok, w)
		}
	}
	if i, j := slices.Index(order, "sync-dynamic"), slices.Index(order, "sync-unique-pods"); i < 0 || j != i+1 {
		t.Errorf("order = %v: the shapes do not follow sync-dynamic", order)
	}
}

func TestScaleChartHasOnePointPerCountAndLibrary(t *testing.T) {
	registerScale([]int{2000, 20000})
	rep := &report{Runs: 1}
	for _, n := range []int{2000, 20000} {
		rep.add(scaleName(n), "kubego", sample{"live_heap_kb_per_obj": 3.9, "sync_us_per_obj": 45})
		rep.add(scaleName(n), "client-go", sample{"live_heap_kb_per_obj": 9.3, "sync_us_per_obj": 100})
	}
	rep.finish()
	ps := rep.scalePoints()
	if len(ps) != 2 || ps[0].n != 2000 || ps[1].n != 20000 || ps[1].heapKB != [2]float64{3.9, 9.3} {
		t.Fatalf("points = %+v", ps)
	}
	svg := scaleSVG(ps)
	if got := strings.Count(svg, "<circle"); got != 8 {
		t.Errorf("%d points drawn, want 8 (2 counts × 2 libraries × 2 panels)", got)
	}
	if !strings.Contains(rep.table(), "| scale-2000 | live_heap_kb_per_obj | 3.9 | 9.3 |") {
		t.Errorf("table:\n%s", rep.table())
	}
}
