package leaderelection

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubego/kubego/clock"
)

// stalledClock is the clock of a process that was stopped and resumed:
// Now jumps when the test says so, and no timer has fired yet.
type stalledClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stalledClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *stalledClock) jump(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
func (c *stalledClock) AfterFunc(time.Duration, func()) clock.Timer { return idleTimer{} }

type idleTimer struct{}

func (idleTimer) Stop() bool                 { return true }
func (idleTimer) Reset(d time.Duration) bool { return true }

type countingRT struct{ calls int }

func (r *countingRT) RoundTrip(*http.Request) (*http.Response, error) {
	r.calls++
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(""))}, nil
}

func TestWorkOfAnOverTermIsRefusedBeforeItsTimerFires(t *testing.T) {
	clk := &stalledClock{now: time.Unix(1_700_000_000, 0)}
	leading := make(chan context.Context, 1)
	c := startCandidate(t, newMemStore(), "a", nil, func(cfg *Config) {
		cfg.Clock = clk
		cfg.Callbacks.OnStartedLeading = func(ctx context.Context) { leading <- ctx; <-ctx.Done() }
	})
	defer c.cancel()
	ctx := <-leading
	rt := &countingRT{}
	send := func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPatch, "https://example.invalid/x", strings.NewReader("{}"))
		_, err := GuardTransport(rt).RoundTrip(req)
		return err
	}
	if err := CheckTerm(ctx); err != nil {
		t.Fatalf("CheckTerm during the term = %v", err)
	}
	if err := send(ctx); err != nil || rt.calls != 1 {
		t.Fatalf("request during the term: err %v, sent %d", err, rt.calls)
	}
	clk.jump(time.Minute) // stopped for a minute; the term's timer has not run
	if ctx.Err() != nil {
		t.Fatal("the test needs the term's context still live")
	}
	if err := CheckTerm(ctx); !errors.Is(err, ErrTermOver) {
		t.Fatalf("CheckTerm after the jump = %v, want ErrTermOver", err)
	}
	if err := send(ctx); !errors.Is(err, ErrTermOver) || rt.calls != 1 {
		t.Fatalf("request after the jump: err %v, sent %d; want ErrTermOver and nothing sent", err, rt.calls)
	}
	if err := send(context.Background()); err != nil || rt.calls != 2 {
		t.Fatalf("request of no term: err %v, sent %d", err, rt.calls)
	}
}
