package rest

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestTokenBucketPacesRequests(t *testing.T) {
	for _, tt := range []struct {
		name  string
		opts  TokenBucketOptions
		calls int
		want  time.Duration // from the first call to the end of the last
	}{
		{"a burst goes at once", TokenBucketOptions{QPS: 5, Burst: 3}, 3, 0},
		{"past the burst, one per 1/QPS", TokenBucketOptions{QPS: 5, Burst: 3}, 8, time.Second},
		{"default burst is QPS rounded up", TokenBucketOptions{QPS: 2.5}, 4, 400 * time.Millisecond},
		{"below one QPS the burst is one", TokenBucketOptions{QPS: 0.5}, 3, 4 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b, err := NewTokenBucket(tt.opts)
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				for range tt.calls {
					if err := b.Wait(t.Context()); err != nil {
						t.Fatal(err)
					}
				}
				if got := time.Since(start); got != tt.want {
					t.Errorf("%d calls took %s, want %s", tt.calls, got, tt.want)
				}
			})
		})
	}
}

// Waiters are served in turn; one whose context ends returns its token,
// so the next waiter does not wait for it.
func TestTokenBucketCancelledWaitReturnsItsToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := NewTokenBucket(TokenBucketOptions{QPS: 1, Burst: 1})
		_ = b.Wait(t.Context()) // the burst
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- b.Wait(ctx) }()
		synctest.Wait()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled Wait = %v", err)
		}
		start := time.Now()
		if err := b.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != time.Second {
			t.Errorf("the next Wait took %s, want 1s (one token, not two)", got)
		}
		ended, end := context.WithCancel(t.Context())
		end()
		if err := b.Wait(ended); !errors.Is(err, context.Canceled) {
			t.Errorf("Wait with an ended context = %v", err)
		}
	})
}

func TestTokenBucketRefusesBadOptions(t *testing.T) {
	for _, o := range []TokenBucketOptions{{}, {QPS: -1}, {QPS: math.NaN()}, {QPS: math.Inf(1)}, {QPS: 1, Burst: -1}} {
		if _, err := NewTokenBucket(o); !errors.Is(err, ErrInvalidRateLimit) {
			t.Errorf("NewTokenBucket(%+v) = %v, want ErrInvalidRateLimit", o, err)
		}
	}
}

// A client with a bucket sends its requests at the bucket's pace.
func TestClientWithTokenBucket(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := NewTokenBucket(TokenBucketOptions{QPS: 10, Burst: 1})
		c := newInProcessClient(t, func(cfg *Config) { cfg.RateLimiter = b })
		start := time.Now()
		for range 5 {
			if err := c.Get().AbsPath("/api").Do(t.Context()).Error(); err != nil {
				t.Fatal(err)
			}
		}
		if got := time.Since(start); got != 400*time.Millisecond {
			t.Errorf("5 requests at 10 QPS took %s, want 400ms", got)
		}
	})
}

// newInProcessClient is a client whose requests are answered 200 {} by a
// RoundTripper, without a connection (so it runs in a synctest bubble);
// header, if set, adds response headers.
func newInProcessClient(t *testing.T, mod func(*Config)) *Client {
	t.Helper()
	cfg := &Config{Host: "http://in-process.example", Logger: discardLogger(),
		WrapTransport: func(http.RoundTripper) http.RoundTripper {
			return rtFunc(func(req *http.Request) (*http.Response, error) {
				h := http.Header{"Content-Type": {mediaJSON}}
				return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader(`{}`)), Request: req}, nil
			})
		}}
	if mod != nil {
		mod(cfg)
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestResultTellsTheFlowControl(t *testing.T) {
	c := newInProcessClient(t, func(cfg *Config) {
		next := cfg.WrapTransport
		cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
			inner := next(rt)
			return rtFunc(func(req *http.Request) (*http.Response, error) {
				resp, err := inner.RoundTrip(req)
				resp.Header.Set(HeaderFlowSchemaUID, "fs-1")
				resp.Header.Set(HeaderPriorityLevelUID, "pl-1")
				return resp, err
			})
		}
	})
	res := c.Get().AbsPath("/api").Do(t.Context())
	if got, want := res.FlowControl(), (FlowControl{FlowSchemaUID: "fs-1", PriorityLevelUID: "pl-1"}); got != want {
		t.Errorf("FlowControl() = %+v, want %+v", got, want)
	}
	if got := newInProcessClient(t, nil).Get().AbsPath("/api").Do(t.Context()).FlowControl(); got != (FlowControl{}) {
		t.Errorf("FlowControl() without headers = %+v", got)
	}
}
