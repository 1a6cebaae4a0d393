//go:build linux

package faults_test

import (
	"math"
	"testing"
)

func TestSoakSlopeIsTheLeastSquaresFit(t *testing.T) {
	tests := []struct {
		name   string
		xs, ys []float64
		want   float64
	}{
		{"flat", []float64{0, 1, 2, 3}, []float64{5, 5, 5, 5}, 0},
		{"a line", []float64{0, 1, 2, 3}, []float64{1, 3, 5, 7}, 2},
		{"noise around a falling line", []float64{0, 1, 2, 3}, []float64{10, 8, 7, 4}, -1.9},
		{"one x only", []float64{2, 2}, []float64{1, 9}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := slope(tt.xs, tt.ys); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("slope = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReconcileOverlapsAreFound(t *testing.T) {
	ev := func(id, event, key string, at int64) reconEvent {
		return reconEvent{ID: id, Event: event, Key: key, T: at, Outcome: "-"}
	}
	tests := []struct {
		name  string
		evs   []reconEvent
		exits map[string]int64
		want  int
	}{
		{"one after the other", []reconEvent{ev("a", "start", "k", 1), ev("a", "end", "k", 2), ev("b", "start", "k", 3), ev("b", "end", "k", 4)}, nil, 0},
		{"overlapping", []reconEvent{ev("a", "start", "k", 1), ev("b", "start", "k", 2), ev("a", "end", "k", 3), ev("b", "end", "k", 4)}, nil, 1},
		{"same identity twice is not two leaders", []reconEvent{ev("a", "start", "k", 1), ev("a", "end", "k", 3), ev("a", "start", "k", 2), ev("a", "end", "k", 4)}, nil, 0},
		{"different keys", []reconEvent{ev("a", "start", "k", 1), ev("b", "start", "j", 2), ev("a", "end", "k", 3), ev("b", "end", "j", 4)}, nil, 0},
		{"never ended, process died before the other started", []reconEvent{ev("a", "start", "k", 1), ev("b", "start", "k", 5), ev("b", "end", "k", 6)}, map[string]int64{"a": 4}, 0},
		{"never ended, process lived on", []reconEvent{ev("a", "start", "k", 1), ev("b", "start", "k", 5), ev("b", "end", "k", 6)}, map[string]int64{"a": 9}, 1},
		{"never ended, exit unknown", []reconEvent{ev("a", "start", "k", 1), ev("b", "start", "k", 5), ev("b", "end", "k", 6)}, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := overlaps(spans(tt.evs, tt.exits)); len(got) != tt.want {
				t.Errorf("overlaps = %q, want %d", got, tt.want)
			}
		})
	}
}
