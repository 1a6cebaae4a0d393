package controller

import (
	"context"
	"log/slog"
)

type loggerKey struct{}

func withLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, l)
}

// LoggerFrom returns the logger of the reconcile running with ctx: the
// controller's Options.Logger with "controller" and "request" attributes.
// Outside a reconcile it returns a logger that discards everything.
func LoggerFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.New(slog.DiscardHandler)
}
