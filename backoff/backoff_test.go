package backoff_test

import (
	"math"
	"testing"
	"time"

	"github.com/kubego/kubego/backoff"
)

func TestDelay(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name string
		b    backoff.Backoff
		want []time.Duration // delays after failures 1, 2, 3, ...
	}{
		{"doubles from Initial up to Max", backoff.Backoff{Initial: ms, Max: 10 * ms, Factor: 2}, []time.Duration{ms, 2 * ms, 4 * ms, 8 * ms, 10 * ms, 10 * ms}},
		{"a factor below 1 is constant", backoff.Backoff{Initial: ms, Factor: 0.5}, []time.Duration{ms, ms, ms}},
		{"Initial above Max is Max", backoff.Backoff{Initial: time.Second, Max: ms, Factor: 2}, []time.Duration{ms, ms}},
		{"no Max grows without bound", backoff.Backoff{Initial: time.Second, Factor: 3}, []time.Duration{time.Second, 3 * time.Second, 9 * time.Second}},
		{"fractional factor truncates each step", backoff.Backoff{Initial: 3, Factor: 1.5}, []time.Duration{3, 4, 6, 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i, want := range tt.want {
				if got := tt.b.Delay(i + 1); got != want {
					t.Fatalf("Delay(%d) = %v, want %v", i+1, got, want)
				}
			}
		})
	}
}

func TestDelayNeverOverflows(t *testing.T) {
	b := backoff.Backoff{Initial: time.Second, Factor: 2}
	for _, n := range []int{62, 63, 64, 100, 1 << 20} {
		if got := b.Delay(n); got <= 0 {
			t.Fatalf("Delay(%d) = %v", n, got)
		}
	}
	if got := b.Delay(1 << 20); got != math.MaxInt64 {
		t.Fatalf("Delay(huge) = %v, want the largest Duration", got)
	}
}

// The workqueue's exponential limiter used to compute base<<(n-1) in
// integers; the float steps must give the same delays.
func TestDelayMatchesIntegerDoubling(t *testing.T) {
	b := backoff.Backoff{Initial: 5 * time.Millisecond, Max: 1000 * time.Second, Factor: 2}
	for n := 1; n < 80; n++ {
		want := b.Max
		if exp := n - 1; exp < 63 && b.Initial <= b.Max>>uint(exp) {
			want = b.Initial << uint(exp)
		}
		if got := b.Delay(n); got != want {
			t.Fatalf("Delay(%d) = %v, want %v", n, got, want)
		}
	}
}

func TestJitteredBy(t *testing.T) {
	tests := []struct {
		name string
		b    backoff.Backoff
		d    time.Duration
		r    float64
		want time.Duration
	}{
		{"no jitter returns d", backoff.Backoff{}, time.Second, 0.9, time.Second},
		{"negative jitter returns d", backoff.Backoff{Jitter: -1}, time.Second, 0.9, time.Second},
		{"adds Jitter×r×d", backoff.Backoff{Jitter: 0.5}, time.Second, 0.5, 1250 * time.Millisecond},
		{"saturates instead of overflowing", backoff.Backoff{Jitter: 1}, math.MaxInt64 - 1, 0.99, math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.b.JitteredBy(tt.d, tt.r); got != tt.want {
				t.Fatalf("JitteredBy(%v, %v) = %v, want %v", tt.d, tt.r, got, tt.want)
			}
		})
	}
}

func TestJitteredStaysInItsRange(t *testing.T) {
	b := backoff.Backoff{Jitter: 0.5}
	for range 1000 {
		if got := b.Jittered(time.Second); got < time.Second || got >= 1500*time.Millisecond {
			t.Fatalf("Jittered(1s) = %v, want in [1s, 1.5s)", got)
		}
	}
}

func TestJitteredStaysInRange(t *testing.T) {
	b := backoff.Backoff{Jitter: 1}
	for range 1000 {
		if got := b.Jittered(time.Second); got < time.Second || got >= 2*time.Second {
			t.Fatalf("Jittered = %v, want in [1s, 2s)", got)
		}
	}
}

// Delay takes a shortcut for a Factor of 2; it must agree with stepping
// Next, the general path.
func TestDelayDoublingAgreesWithNext(t *testing.T) {
	for _, b := range []backoff.Backoff{
		{Initial: 5 * time.Millisecond, Max: 1000 * time.Second, Factor: 2},
		{Initial: 800 * time.Millisecond, Max: 30 * time.Second, Factor: 2},
		{Initial: 3, Factor: 2},
		{Initial: time.Second, Max: time.Second, Factor: 2},
		{Factor: 2},
	} {
		d := b.Initial
		if b.Max > 0 && d > b.Max {
			d = b.Max
		}
		for n := 1; n < 80; n++ {
			if got := b.Delay(n); got != d {
				t.Fatalf("%+v: Delay(%d) = %v, stepping Next gives %v", b, n, got, d)
			}
			d = b.Next(d)
		}
	}
}
