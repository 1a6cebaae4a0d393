package informer

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/internal/defaultlog/defaultlogtest"
)

// Without a Logger, a failing watch must reach slog.Default() at warn
// level, and debug records (the backoff) must not. The test replaces
// slog.Default(), so it must not run in parallel.
func TestNoLoggerWarnsAboutAFailingWatchOnTheDefaultLogger(t *testing.T) {
	out := defaultlogtest.Capture(t)

	synctest.Test(t, func(t *testing.T) {
		boom := apierrors.NewInternalError(errString("etcd unavailable"))
		w := watch.NewFake()
		lw := (&fakeLW{}).onList(listOf("10")).onWatch(watchErr2(boom), watchCh(w))
		inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
		stop := start(t, inf)
		synctest.Wait()
		time.Sleep(time.Minute)
		synctest.Wait()
		_ = stop()
	})
	got := out.String()
	if !strings.Contains(got, "level=WARN") || !strings.Contains(got, "etcd unavailable") {
		t.Fatalf("no warning about the failing watch on slog.Default():\n%s", got)
	}
	if strings.Contains(got, "level=DEBUG") || strings.Contains(got, "backing off") {
		t.Fatalf("debug records reached slog.Default():\n%s", got)
	}
}
