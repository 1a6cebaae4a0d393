package kubegotest

import (
	"io"
	"log/slog"
	"sync"
	"testing"
)

// Logger returns a logger writing text records to t's output (t.Output),
// so that they are shown with the test's own lines: with -v, or when the
// test fails. opts are those of slog.NewTextHandler; nil means level Info.
//
// Records logged after the test has finished, by goroutines still running
// (an informer stopping late), are dropped instead of making the test
// binary panic.
func Logger(t testing.TB, opts *slog.HandlerOptions) *slog.Logger {
	w := &testWriter{out: t.Output()}
	t.Cleanup(w.close)
	return slog.New(slog.NewTextHandler(w, opts))
}

// testWriter writes to a test's output until the test ends.
type testWriter struct {
	mu     sync.Mutex
	out    io.Writer
	closed bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return len(p), nil
	}
	return w.out.Write(p)
}

func (w *testWriter) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
}
