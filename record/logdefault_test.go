package record

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Without a Logger, an event the server refuses must be reported on
// slog.Default(). The test replaces slog.Default(), so it must not run in
// parallel.
func TestNoLoggerReportsAbandonedWritesOnTheDefaultLogger(t *testing.T) {
	var out syncBuffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(old) })

	synctest.Test(t, func(t *testing.T) {
		sink := newMemSink()
		sink.fail = func(string) error { return apierrors.NewBadRequest("no") }
		r := newRecorder(t, sink, nil)
		r.Eventf(pod("a"), nil, Normal, "R", "A", "x")
		synctest.Wait()
		shutdown(t, r)
	})
	if got := out.String(); !strings.Contains(got, `level=WARN msg="record: event write abandoned"`) {
		t.Fatalf("slog.Default() did not get the abandoned write:\n%s", got)
	}
}
