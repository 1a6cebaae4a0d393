package informer

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"
)

// lockedBuffer is a bytes.Buffer safe for the concurrent writes of a
// handler shared by goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Without a Logger, a failing watch must reach slog.Default() at warn
// level, and debug records (the backoff) must not. The test replaces
// slog.Default(), so it must not run in parallel.
func TestNoLoggerWarnsAboutAFailingWatchOnTheDefaultLogger(t *testing.T) {
	var out lockedBuffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(old) })

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
