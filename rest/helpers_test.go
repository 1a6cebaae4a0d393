package rest

import (
	"io"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/kubego/kubego/clock"
)

// fakeClock records the waits asked of AfterFunc and, instead of waiting,
// advances its time and runs the function at once: a retry wait takes no
// real time.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) AfterFunc(d time.Duration, fn func()) clock.Timer {
	f.mu.Lock()
	f.sleeps = append(f.sleeps, d)
	f.now = f.now.Add(d)
	f.mu.Unlock()
	fn()
	return firedTimer{}
}

// firedTimer is the Timer of a call that already happened.
type firedTimer struct{}

func (firedTimer) Stop() bool               { return false }
func (firedTimer) Reset(time.Duration) bool { return false }

func (f *fakeClock) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

func (f *fakeClock) Sleeps() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.sleeps...)
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newServer starts a plain-http test server closed at cleanup.
func newServer(t testing.TB, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// newTestClient builds a client for srv with a fake clock and quiet logs;
// mod may adjust the Config.
func newTestClient(t testing.TB, srv *httptest.Server, mod func(*Config)) (*Client, *fakeClock) {
	t.Helper()
	clk := newFakeClock()
	cfg := &Config{Host: srv.URL, Clock: clk, Logger: discardLogger()}
	if srv.TLS != nil {
		cfg.TLS.CAData = serverCA(t, srv)
	}
	if mod != nil {
		mod(cfg)
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c, clk
}

type runtimeObject = runtime.Object

func schemaGV(g, v string) schema.GroupVersion { return schema.GroupVersion{Group: g, Version: v} }
