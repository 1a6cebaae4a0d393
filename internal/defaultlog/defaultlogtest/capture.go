// Package defaultlogtest helps tests check what reaches slog.Default() when
// a kubego package is given no logger.
package defaultlogtest

import (
	"bytes"
	"log/slog"
	"sync"
	"testing"
)

// Output is what the default logger received, safe to read while
// goroutines still log.
type Output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

// String returns everything logged so far, one text record per line.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// Capture makes slog.Default() a text logger at debug level writing to the
// returned Output, and restores the previous default when t ends. A test
// that calls it must not run in parallel with others.
func Capture(t testing.TB) *Output {
	t.Helper()
	out := &Output{}
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(old) })
	return out
}
