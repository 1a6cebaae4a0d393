package controller

import (
	"context"
	"log/slog"
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
// Outside a reconcile it returns a logger that discards everything.
func LoggerFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(reconcileLogger); ok {
		return l.log.With("request", l.req)
	}
	return slog.New(slog.DiscardHandler)
}
