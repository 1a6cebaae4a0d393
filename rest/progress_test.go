package rest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// trickleRT answers every request with status and headers at once, then a
// body of chunk bytes every gap, total bytes in all (0: without end); past
// stopAfter bytes (0: never) it sends nothing more. The body's Read waits
// on the request's context, as a socket read does.
type trickleRT struct {
	status    int
	chunk     int
	gap       time.Duration
	total     int
	stopAfter int
	// calls counts round trips (read by the test after the call).
	calls *int
}

func (rt trickleRT) RoundTrip(req *http.Request) (*http.Response, error) {
	if rt.calls != nil {
		*rt.calls++
	}
	h := http.Header{"Content-Type": {"text/plain"}}
	if rt.status == http.StatusTooManyRequests {
		h.Set("Retry-After", "1")
	}
	return &http.Response{StatusCode: rt.status, Header: h, Request: req,
		Body: &trickle{ctx: req.Context(), rt: rt}}, nil
}

type trickle struct {
	ctx     context.Context
	rt      trickleRT
	sent    int
	pending int // bytes of the last chunk not read yet
}

func (b *trickle) Read(p []byte) (int, error) {
	if b.rt.total > 0 && b.sent >= b.rt.total {
		return 0, io.EOF
	}
	if b.pending == 0 {
		gap := b.rt.gap
		if b.rt.stopAfter > 0 && b.sent >= b.rt.stopAfter {
			gap = 1000 * time.Hour
		}
		select {
		case <-b.ctx.Done():
			return 0, context.Cause(b.ctx)
		case <-time.After(gap):
		}
		b.pending = b.rt.chunk
		if b.rt.total > 0 {
			b.pending = min(b.pending, b.rt.total-b.sent)
		}
	}
	n := min(len(p), b.pending)
	for i := range n {
		p[i] = ' '
	}
	b.sent += n
	b.pending -= n
	return n, nil
}

func (b *trickle) Close() error { return nil }

func trickleClient(t *testing.T, rt trickleRT, mod func(*Config)) *Client {
	t.Helper()
	cfg := &Config{Host: "http://trickle.example", Logger: discardLogger(),
		WrapTransport: func(http.RoundTripper) http.RoundTripper { return rt }}
	if mod != nil {
		mod(cfg)
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestBodiesThatStopComingAreCut(t *testing.T) {
	window := func(d time.Duration) func(*Config) {
		return func(c *Config) { c.Limits.ResponseBodyProgressTimeout = d }
	}
	const (
		success = iota
		limit
		status
		deadline
	)
	tests := []struct {
		name string
		rt   trickleRT
		mod  func(*Config)
		want int
		// took is how long the call takes (fake time).
		took time.Duration
	}{
		{"a body that stops after its first bytes, default Config", trickleRT{status: 200, chunk: 100, stopAfter: 100}, nil, limit, time.Minute},
		{"a body trickling a byte a second", trickleRT{status: 200, chunk: 1, gap: time.Second}, window(5 * time.Second), limit, 5 * time.Second},
		{"a body that keeps coming for 128 s, 64 KiB every 4 s", trickleRT{status: 200, chunk: 64 << 10, gap: 4 * time.Second, total: 2 << 20}, window(5 * time.Second), success, 128 * time.Second},
		{"an error body trickling a byte a second: the status is reported", trickleRT{status: 500, chunk: 1, gap: time.Second}, window(5 * time.Second), status, 5 * time.Second},
		{"a trickle with the limit off runs until the context ends", trickleRT{status: 200, chunk: 1, gap: time.Second}, window(-1), deadline, time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := trickleClient(t, tt.rt, tt.mod)
				ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
				defer cancel()
				start := time.Now()
				err := c.Get().AbsPath("x").Do(ctx).Error()
				took := time.Since(start)
				var le *LimitError
				switch tt.want {
				case success:
					if err != nil {
						t.Fatalf("err = %v, want success", err)
					}
				case limit:
					if !errors.As(err, &le) || le.Limit != LimitBodyProgressTimeout || !errors.Is(err, ErrLimitExceeded) {
						t.Fatalf("err = %v, want the %s limit", err, LimitBodyProgressTimeout)
					}
					if !strings.Contains(err.Error(), LimitBodyProgressTimeout) {
						t.Errorf("error %q does not name the limit", err)
					}
				case status:
					if !apierrors.IsInternalError(err) {
						t.Fatalf("err = %v, want the response's 500", err)
					}
				case deadline:
					if !errors.Is(err, context.DeadlineExceeded) {
						t.Fatalf("err = %v, want the context's deadline", err)
					}
				}
				if took != tt.took {
					t.Errorf("took %s, want %s", took, tt.took)
				}
			})
		})
	}
}

func TestBodyDrainedBeforeARetryIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		calls := 0
		c := trickleClient(t, trickleRT{status: http.StatusTooManyRequests, chunk: 1, gap: time.Second, calls: &calls},
			func(c *Config) { c.Limits.ResponseBodyProgressTimeout = 5 * time.Second; c.MaxRetries = 2 })
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		start := time.Now()
		err := c.Get().AbsPath("x").Do(ctx).Error()
		if !apierrors.IsTooManyRequests(err) {
			t.Fatalf("err = %v, want the last 429", err)
		}
		// Three bodies cut after 5 s each, two Retry-After waits of 1 s.
		if took := time.Since(start); calls != 3 || took != 17*time.Second {
			t.Errorf("%d attempts in %s, want 3 in 17s", calls, took)
		}
	})
}
