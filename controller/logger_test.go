package controller

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
)

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

func TestLoggerFromNamesControllerAndRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf lockedBuffer
		log := slog.New(slog.NewTextHandler(&buf, nil))
		rec := &recorder{fn: func(ctx context.Context, _ Request, _ int) (Result, error) {
			LoggerFrom(ctx).Info("hello")
			return Result{}, nil
		}}
		h := startController(t, newMemSource(cm("a")), Options{Reconciler: rec, Logger: log, Sources: []Source{For[*corev1.ConfigMap](SourceOptions{})}})
		synctest.Wait()
		h.stop(t)
		var line string
		for l := range strings.Lines(buf.String()) {
			if strings.Contains(l, "msg=hello") {
				line = l
			}
		}
		if !strings.Contains(line, "controller=test") || !strings.Contains(line, "request=ns/a") {
			t.Fatalf("log line %q lacks controller and request", line)
		}
	})
	LoggerFrom(context.Background()).Info("discarded") // must not panic outside a reconcile
}
