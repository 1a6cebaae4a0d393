package rest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// flakyServer answers the first fails requests with code and header
// Retry-After: after (when non-empty), then 200. It records request bodies.
func flakyServer(t *testing.T, fails int, code int, after string) (*Client, *fakeClock, *atomic.Int32, *[]string) {
	t.Helper()
	var n atomic.Int32
	var bodies []string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		if int(n.Add(1)) <= fails {
			if after != "" {
				w.Header().Set("Retry-After", after)
			}
			w.WriteHeader(code)
			return
		}
		w.Header().Set("Content-Type", mediaJSON)
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
	c, clock := newTestClient(t, srv, func(cfg *Config) { cfg.MaxRetries = 3; cfg.MaxRetryAfter = 10 * time.Second })
	return c, clock, &n, &bodies
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name       string
		fails      int
		code       int
		after      string
		req        func(c *Client) *Request
		wantCalls  int32
		wantSleeps []time.Duration
		wantOK     bool
	}{
		{"GET 429 honours Retry-After", 2, 429, "2", func(c *Client) *Request { return c.Get().Resource("pods") }, 3, []time.Duration{2 * time.Second, 2 * time.Second}, true},
		{"GET 429 without header waits a second", 1, 429, "", func(c *Client) *Request { return c.Get().Resource("pods") }, 2, []time.Duration{time.Second}, true},
		{"GET 503 with Retry-After", 1, 503, "1", func(c *Client) *Request { return c.Get().Resource("pods") }, 2, []time.Duration{time.Second}, true},
		{"GET 503 without Retry-After is not retried", 1, 503, "", func(c *Client) *Request { return c.Get().Resource("pods") }, 1, nil, false},
		{"GET 500 with Retry-After 0 retries without waiting", 1, 500, "0", func(c *Client) *Request { return c.Get().Resource("pods") }, 2, nil, true},
		{"Retry-After is capped", 1, 429, "3600", func(c *Client) *Request { return c.Get().Resource("pods") }, 2, []time.Duration{10 * time.Second}, true},
		{"Retry-After as HTTP date", 1, 429, "Thu, 01 Jan 2026 00:00:05 GMT", func(c *Client) *Request { return c.Get().Resource("pods") }, 2, []time.Duration{5 * time.Second}, true},
		{"Retry-After date in the past waits a second", 1, 429, "Wed, 31 Dec 2025 23:00:00 GMT", func(c *Client) *Request { return c.Get().Resource("pods") }, 2, []time.Duration{time.Second}, true},
		{"Retry-After date within the second waits a second", 1, 429, "Thu, 01 Jan 2026 00:00:00 GMT", func(c *Client) *Request { return c.Get().Resource("pods") }, 2, []time.Duration{time.Second}, true},
		{"count is bounded", 10, 429, "1", func(c *Client) *Request { return c.Get().Resource("pods") }, 4, []time.Duration{time.Second, time.Second, time.Second}, false},
		{"POST with replayable body retried on 429", 1, 429, "1", func(c *Client) *Request { return c.Post().Resource("pods").Body([]byte(`{"a":1}`)) }, 2, []time.Duration{time.Second}, true},
		{"POST not retried on 503", 1, 503, "1", func(c *Client) *Request { return c.Post().Resource("pods").Body([]byte(`{"a":1}`)) }, 1, nil, false},
		{"POST with a stream body not retried", 1, 429, "1", func(c *Client) *Request { return c.Post().Resource("pods").Body(strings.NewReader(`{}`)) }, 1, nil, false},
		{"404 is not retried", 1, 404, "1", func(c *Client) *Request { return c.Get().Resource("pods") }, 1, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, clock, n, bodies := flakyServer(t, tt.fails, tt.code, tt.after)
			err := tt.req(c).Do(context.Background()).Error()
			if got := n.Load(); got != tt.wantCalls {
				t.Errorf("calls = %d, want %d", got, tt.wantCalls)
			}
			if got := clock.Sleeps(); len(got) != len(tt.wantSleeps) || (len(got) > 0 && got[0] != tt.wantSleeps[0]) {
				t.Errorf("sleeps = %v, want %v", got, tt.wantSleeps)
			}
			if (err == nil) != tt.wantOK {
				t.Errorf("err = %v, want ok=%v", err, tt.wantOK)
			}
			for _, b := range *bodies {
				if b != (*bodies)[0] {
					t.Errorf("replayed body %q differs from %q", b, (*bodies)[0])
				}
			}
			if tt.code == 429 && !tt.wantOK && err != nil && tt.wantCalls > 1 && !apierrors.IsTooManyRequests(err) {
				t.Errorf("final error %v is not TooManyRequests", err)
			}
		})
	}
}

func TestRetryWaitStopsWithContext(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(429)
	})
	c, _ := newTestClient(t, srv, func(cfg *Config) { cfg.Clock = nil }) // real clock
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.Get().Resource("pods").Do(ctx).Error()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want deadline exceeded", err)
	}
	if time.Since(start) > 4*time.Second {
		t.Errorf("waited %v despite the context", time.Since(start))
	}
}

func TestRetriesDisabledByNegativeMax(t *testing.T) {
	c, clock, n, _ := flakyServer(t, 1, 429, "1")
	c.maxRetries = 0
	_ = c.Get().Resource("pods").Do(context.Background())
	if n.Load() != 1 || len(clock.Sleeps()) != 0 {
		t.Errorf("calls %d sleeps %v", n.Load(), clock.Sleeps())
	}
}

type countingLimiter struct{ n atomic.Int32 }

func (l *countingLimiter) Wait(ctx context.Context) error { l.n.Add(1); return ctx.Err() }

func TestRateLimiterIsWaitedOnBeforeEachAttempt(t *testing.T) {
	lim := &countingLimiter{}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {})
	c, _ := newTestClient(t, srv, func(cfg *Config) { cfg.RateLimiter = lim })
	_ = c.Get().Resource("pods").Do(context.Background())
	_ = c.Get().Resource("pods").Do(context.Background())
	if lim.n.Load() != 2 {
		t.Errorf("limiter waits = %d", lim.n.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var te *TransportError
	if err := c.Get().Resource("pods").Do(ctx).Error(); !errors.As(err, &te) || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}
