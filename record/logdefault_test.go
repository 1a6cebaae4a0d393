package record

import (
	"strings"
	"testing"
	"testing/synctest"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubego/kubego/internal/defaultlog/defaultlogtest"
)

// Without a Logger, an event the server refuses must be reported on
// slog.Default(). The test replaces slog.Default(), so it must not run in
// parallel.
func TestNoLoggerReportsAbandonedWritesOnTheDefaultLogger(t *testing.T) {
	out := defaultlogtest.Capture(t)

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
