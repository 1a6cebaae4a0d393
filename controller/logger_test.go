package controller

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubego/kubego/informer"
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
		h := startController(t, newMemBackend(cm("a")), Options{Reconciler: rec, Logger: log, Sources: []Source{For[*corev1.ConfigMap]{}}})
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

// countingHandler records how often WithAttrs builds a new handler.
type countingHandler struct {
	slog.Handler
	withAttrs *atomic.Int64
}

func (h countingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	h.withAttrs.Add(1)
	return countingHandler{h.Handler.WithAttrs(as), h.withAttrs}
}

func (h countingHandler) WithGroup(name string) slog.Handler {
	return countingHandler{h.Handler.WithGroup(name), h.withAttrs}
}

func TestLoggerFromWritesWhatWithWouldWrite(t *testing.T) {
	req := Request{Key: informer.Key{Namespace: "ns", Name: "a"}}
	tests := []struct {
		name string
		use  func(l *slog.Logger)
	}{
		{"a record", func(l *slog.Logger) { l.Info("hello", "k", 1) }},
		{"a record below the level is dropped", func(l *slog.Logger) { l.Debug("hidden") }},
		{"With attributes follow the request", func(l *slog.Logger) { l.With("k", 1).Info("hello", "j", 2) }},
		{"a group holds later attributes, not the request", func(l *slog.Logger) { l.WithGroup("g").Info("hello", "k", 1) }},
		{"an empty group changes nothing", func(l *slog.Logger) { l.WithGroup("").Info("hello") }},
		{"LogAttrs", func(l *slog.Logger) {
			l.LogAttrs(context.Background(), slog.LevelWarn, "hello", slog.String("k", "v"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got, want bytes.Buffer
			opts := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			}}
			base := slog.New(slog.NewTextHandler(&got, opts)).With("controller", "c")
			tt.use(LoggerFrom(withLogger(context.Background(), base, req)))
			tt.use(slog.New(slog.NewTextHandler(&want, opts)).With("controller", "c").With("request", req))
			if got.String() != want.String() {
				t.Fatalf("LoggerFrom wrote\n%q\nWith wrote\n%q", got.String(), want.String())
			}
		})
	}
}

func TestLoggerFromBuildsNothingForDisabledRecords(t *testing.T) {
	var n atomic.Int64
	h := countingHandler{slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}), &n}
	ctx := withLogger(context.Background(), slog.New(h), Request{Key: informer.Key{Namespace: "ns", Name: "a"}})
	LoggerFrom(ctx).Debug("dropped")
	if got := n.Load(); got != 0 {
		t.Fatalf("a disabled Debug record built %d handlers, want 0", got)
	}
	LoggerFrom(ctx).Info("kept")
	if got := n.Load(); got != 1 {
		t.Fatalf("an enabled record built %d handlers, want 1", got)
	}
}

func BenchmarkLoggerFromDisabledDebug(b *testing.B) {
	log := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn})).With("controller", "c")
	ctx := withLogger(context.Background(), log, Request{Key: informer.Key{Namespace: "ns", Name: "a"}})
	b.ReportAllocs()
	for b.Loop() {
		LoggerFrom(ctx).Debug("labeled")
	}
}
