package controller

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubego/kubego/internal/defaultlog/defaultlogtest"
)

// Without a Logger, a failing reconcile must reach slog.Default() (as an
// error) while info records (workers starting) must not; so must a warning
// logged through LoggerFrom outside a reconcile. The test replaces
// slog.Default(), so it must not run in parallel.
func TestNoLoggerSendsFailuresToTheDefaultLogger(t *testing.T) {
	out := defaultlogtest.Capture(t)

	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{fn: func(context.Context, Request, int) (Result, error) {
			return Result{}, errors.New("boom")
		}}
		h := startController(t, newMemBackend(cm("a")), Options{Reconciler: rec, Sources: []Source{For[*corev1.ConfigMap]{}}})
		synctest.Wait()
		h.stop(t)
	})
	LoggerFrom(context.Background()).Warn("outside a reconcile")
	LoggerFrom(context.Background()).Info("chatter outside a reconcile")

	got := out.String()
	for _, want := range []string{`level=ERROR msg="reconcile failed; retrying"`, "err=boom", `level=WARN msg="outside a reconcile"`} {
		if !strings.Contains(got, want) {
			t.Errorf("slog.Default() lacks %q:\n%s", want, got)
		}
	}
	for _, absent := range []string{"level=INFO", "chatter"} {
		if strings.Contains(got, absent) {
			t.Errorf("slog.Default() got %q:\n%s", absent, got)
		}
	}
}
