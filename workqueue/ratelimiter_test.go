package workqueue

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/kubego/kubego/backoff"
)

// whens calls l.When(k) n times and returns the delays.
func whens[K comparable](l RateLimiter[K], k K, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = l.When(k)
	}
	return out
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

const ms = time.Millisecond

func TestExponentialCurve(t *testing.T) {
	tests := []struct {
		name string
		opts backoff.Backoff
		n    int
		want []time.Duration
	}{
		{
			name: "zero options double from 5ms",
			n:    6,
			want: []time.Duration{5 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms, 160 * ms},
		},
		{
			name: "delays stop at Max",
			opts: backoff.Backoff{Initial: ms, Max: 10 * ms},
			n:    6,
			want: []time.Duration{ms, 2 * ms, 4 * ms, 8 * ms, 10 * ms, 10 * ms},
		},
		{
			name: "an Initial above Max gives Max",
			opts: backoff.Backoff{Initial: time.Second, Max: ms},
			n:    2,
			want: []time.Duration{ms, ms},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := NewExponential[string](tt.opts)
			if got := whens(e, "k", tt.n); !equalDurations(got, tt.want) {
				t.Fatalf("delays %v, want %v", got, tt.want)
			}
			if got := e.NumRequeues("k"); got != tt.n {
				t.Fatalf("NumRequeues = %d, want %d", got, tt.n)
			}
		})
	}
}

func TestExponentialReachesTheDefaultCapWithoutOverflow(t *testing.T) {
	e := NewExponential[string](backoff.Backoff{})
	var last time.Duration
	for i := range 200 {
		d := e.When("k")
		if d < last || d <= 0 {
			t.Fatalf("failure %d: delay %v after %v", i+1, d, last)
		}
		last = d
	}
	if last != 1000*time.Second {
		t.Fatalf("delay after 200 failures = %v, want 1000s", last)
	}
	huge := NewExponential[string](backoff.Backoff{Initial: time.Nanosecond, Max: time.Duration(math.MaxInt64)})
	for i := range 1000 {
		if d := huge.When("k"); d <= 0 {
			t.Fatalf("1ns doubling to the largest Duration: failure %d: delay %v", i+1, d)
		}
	}
}

// Every per-key limiter: keys are independent, Forget resets one key,
// NumRequeues counts When calls.
func TestPerKeyLimitersForgetAndCount(t *testing.T) {
	limiters := []struct {
		name  string
		l     RateLimiter[string]
		first time.Duration
	}{
		{"exponential", NewExponential[string](backoff.Backoff{}), 5 * ms},
		{"fast-slow", NewFastSlow[string](FastSlowOptions{}), 5 * ms},
		{"max-of", NewMaxOf[string](NewExponential[string](backoff.Backoff{}), NewFastSlow[string](FastSlowOptions{})), 5 * ms},
	}
	for _, tt := range limiters {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.l.NumRequeues("a"); got != 0 {
				t.Fatalf("NumRequeues of an unknown key = %d", got)
			}
			tt.l.Forget("a") // forgetting an unknown key is fine
			whens(tt.l, "a", 3)
			whens(tt.l, "b", 1)
			if a, b := tt.l.NumRequeues("a"), tt.l.NumRequeues("b"); a != 3 || b != 1 {
				t.Fatalf("NumRequeues a=%d b=%d, want 3 and 1", a, b)
			}
			tt.l.Forget("a")
			if a, b := tt.l.NumRequeues("a"), tt.l.NumRequeues("b"); a != 0 || b != 1 {
				t.Fatalf("after Forget(a): NumRequeues a=%d b=%d, want 0 and 1", a, b)
			}
			if d := tt.l.When("a"); d != tt.first {
				t.Fatalf("first delay after Forget = %v, want %v", d, tt.first)
			}
		})
	}
}

func TestFastSlowCurve(t *testing.T) {
	tests := []struct {
		name string
		opts FastSlowOptions
		want []time.Duration
	}{
		{
			name: "zero options: five fast 5ms retries, then 10s",
			want: []time.Duration{5 * ms, 5 * ms, 5 * ms, 5 * ms, 5 * ms, 10 * time.Second, 10 * time.Second},
		},
		{
			name: "custom delays and attempts",
			opts: FastSlowOptions{Fast: ms, Slow: time.Minute, FastAttempts: 2},
			want: []time.Duration{ms, ms, time.Minute, time.Minute},
		},
		{
			name: "negative attempts means always slow",
			opts: FastSlowOptions{Slow: time.Second, FastAttempts: -1},
			want: []time.Duration{time.Second, time.Second},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFastSlow[int](tt.opts)
			if got := whens(f, 1, len(tt.want)); !equalDurations(got, tt.want) {
				t.Fatalf("delays %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBucketCurve(t *testing.T) {
	tests := []struct {
		name string
		opts BucketOptions
		// steps: advance the clock, then call When n times; want the
		// delays.
		steps []struct {
			advance time.Duration
			want    []time.Duration
		}
	}{
		{
			name: "a burst goes through, then retries are spaced at the rate",
			opts: BucketOptions{QPS: 10, Burst: 3},
			steps: []struct {
				advance time.Duration
				want    []time.Duration
			}{
				{0, []time.Duration{0, 0, 0, 100 * ms, 200 * ms}},
				// 200ms later the reservations are paid and nothing is left.
				{200 * ms, []time.Duration{100 * ms}},
				// A quiet second refills the bucket to its burst, no more.
				{10 * time.Second, []time.Duration{0, 0, 0, 100 * ms}},
			},
		},
		{
			name: "tokens earned while idle are used at once",
			opts: BucketOptions{QPS: 2, Burst: 1},
			steps: []struct {
				advance time.Duration
				want    []time.Duration
			}{
				{0, []time.Duration{0, 500 * ms}},
				{500 * ms, []time.Duration{500 * ms}},
				{time.Second, []time.Duration{0}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			tt.opts.Clock = clock
			b := NewBucket[string](tt.opts)
			for i, s := range tt.steps {
				clock.Advance(s.advance)
				if got := whens(b, "k", len(s.want)); !equalDurations(got, s.want) {
					t.Fatalf("step %d: delays %v, want %v", i, got, s.want)
				}
			}
			b.Forget("k")
			if b.NumRequeues("k") != 0 {
				t.Fatal("a bucket counts requeues")
			}
		})
	}
}

func TestBucketZeroOptionsAllow100Then10PerSecond(t *testing.T) {
	clock := newFakeClock()
	b := NewBucket[int](BucketOptions{Clock: clock})
	for i := range 100 {
		if d := b.When(i); d != 0 {
			t.Fatalf("retry %d of the burst waits %v", i+1, d)
		}
	}
	for i, want := range []time.Duration{100 * ms, 200 * ms, 300 * ms} {
		if d := b.When(0); d != want {
			t.Fatalf("retry %d after the burst waits %v, want %v", i+1, d, want)
		}
	}
}

func TestMaxOfTakesTheSlowest(t *testing.T) {
	clock := newFakeClock()
	m := NewMaxOf[string](
		NewExponential[string](backoff.Backoff{Initial: ms, Max: time.Hour}),
		NewBucket[string](BucketOptions{QPS: 1, Burst: 2, Clock: clock}),
	)
	// Exponential: 1, 2, 4, 8ms. Bucket: 0, 0, 1s, 2s.
	want := []time.Duration{ms, 2 * ms, time.Second, 2 * time.Second}
	if got := whens(m, "k", 4); !equalDurations(got, want) {
		t.Fatalf("delays %v, want %v", got, want)
	}
	if n := m.NumRequeues("k"); n != 4 {
		t.Fatalf("NumRequeues = %d, want 4", n)
	}
	if d := NewMaxOf[string]().When("k"); d != 0 {
		t.Fatalf("empty MaxOf delay = %v", d)
	}
}

func TestDefaultRateLimiter(t *testing.T) {
	clock := newFakeClock()
	l := DefaultRateLimiter[int](clock)
	// 100 distinct keys failing once: the bucket's burst covers them, so
	// the per-key backoff decides.
	for k := range 100 {
		if d := l.When(k); d != 5*ms {
			t.Fatalf("key %d: first delay %v, want 5ms", k, d)
		}
	}
	// The 101st retry of any key waits for the bucket.
	if d := l.When(1000); d != 100*ms {
		t.Fatalf("retry after the burst waits %v, want 100ms", d)
	}
	// One key failing again and again soon exceeds the bucket's pace.
	for range 20 {
		l.When(7)
	}
	if d := l.When(7); d != 1000*time.Second {
		t.Fatalf("22nd failure of a key waits %v, want the per-key backoff", d)
	}
}

func TestQueueAddRateLimited(t *testing.T) {
	clock := newFakeClock()
	q := New(Options[string]{Clock: clock, RateLimiter: NewExponential[string](backoff.Backoff{Initial: time.Second})})
	defer q.ShutDown()
	ctx := context.Background()
	for attempt, wait := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		q.AddRateLimited("a")
		if n := q.NumRequeues("a"); n != attempt+1 {
			t.Fatalf("NumRequeues = %d, want %d", n, attempt+1)
		}
		clock.Advance(wait - time.Nanosecond)
		if q.Len() != 0 {
			t.Fatalf("attempt %d: ready before %v", attempt+1, wait)
		}
		clock.Advance(time.Nanosecond)
		if q.Len() != 1 {
			t.Fatalf("attempt %d: not ready at %v", attempt+1, wait)
		}
		k, _ := q.Get(ctx)
		q.Done(k)
	}
	q.Forget("a")
	if n := q.NumRequeues("a"); n != 0 {
		t.Fatalf("NumRequeues after Forget = %d", n)
	}
	q.AddRateLimited("a")
	clock.Advance(time.Second)
	if q.Len() != 1 {
		t.Fatal("after Forget the backoff did not start over")
	}
}
