// Package defaultlog is the logger every kubego package uses when its
// Options carry none: records at slog.LevelWarn and above go to
// slog.Default(), looked up when each record is logged (so a program that
// calls slog.SetDefault later is still heard); Debug and Info records are
// dropped. Failures a user must know about (a failing watch, a relist, a
// sync error, a credential refresh that failed) are logged at Warn or
// Error, so they reach the program's default logger unless it passes its
// own.
package defaultlog

import (
	"context"
	"log/slog"
)

// Or returns l, or a logger that sends Warn and above to slog.Default()
// when l is nil.
func Or(l *slog.Logger) *slog.Logger {
	if l != nil {
		return l
	}
	return New()
}

// New returns a logger that sends Warn and above to slog.Default().
func New() *slog.Logger { return slog.New(handler{}) }

// handler forwards records at Warn and above to the handler of
// slog.Default(), replaying the attributes and groups added to it.
type handler struct {
	ops []op // WithAttrs and WithGroup calls, in order
}

// op is one WithAttrs (group == "") or WithGroup call.
type op struct {
	group string
	attrs []slog.Attr
}

func (h handler) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= slog.LevelWarn && slog.Default().Handler().Enabled(ctx, level)
}

func (h handler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return nil
	}
	next := slog.Default().Handler()
	for _, o := range h.ops {
		if o.group != "" {
			next = next.WithGroup(o.group)
		} else {
			next = next.WithAttrs(o.attrs)
		}
	}
	return next.Handle(ctx, r)
}

func (h handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	return handler{ops: append(h.ops[:len(h.ops):len(h.ops)], op{attrs: attrs})}
}

func (h handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return handler{ops: append(h.ops[:len(h.ops):len(h.ops)], op{group: name})}
}
