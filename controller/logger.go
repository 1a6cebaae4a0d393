package controller

import (
	"context"
	"log/slog"

	"github.com/kubego/kubego/internal/defaultlog"
)

type loggerKey struct{}

// reconcileLogger is what a reconcile's context carries: the controller's
// logger and the request, joined only when LoggerFrom is called, so a
// reconcile that does not log pays nothing for it.
type reconcileLogger struct {
	log *slog.Logger
	req Request
}

func withLogger(ctx context.Context, l *slog.Logger, req Request) context.Context {
	return context.WithValue(ctx, loggerKey{}, reconcileLogger{l, req})
}

// LoggerFrom returns the logger of the reconcile running with ctx: the
// controller's Options.Logger with "controller" and "request" attributes.
// Outside a reconcile it returns the default every kubego package uses
// without a logger: warnings and errors to slog.Default(), nothing else.
//
// The "request" attribute is attached only when a record is actually
// handled (or the logger is extended with With or WithGroup), so a call
// at a disabled level, such as a Debug record on an Info logger, costs no
// formatting.
func LoggerFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(reconcileLogger); ok {
		return slog.New(&requestHandler{next: l.log.Handler(), req: l.req})
	}
	return defaultlog.New()
}

// requestHandler is next with a "request" attribute added lazily: the
// same output as next.WithAttrs of it, without building (for a text or
// JSON handler, preformatting) that handler for records next would drop.
type requestHandler struct {
	next slog.Handler
	req  Request
}

func (h *requestHandler) materialize(more ...slog.Attr) slog.Handler {
	return h.next.WithAttrs(append([]slog.Attr{slog.Any("request", h.req)}, more...))
}

func (h *requestHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *requestHandler) Handle(ctx context.Context, r slog.Record) error {
	return h.materialize().Handle(ctx, r)
}

func (h *requestHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return h.materialize(as...)
}

func (h *requestHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return h.materialize().WithGroup(name)
}
