package manager

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// SignalError is the cause of the context SignalContext cancels.
type SignalError struct{ Signal os.Signal }

func (e *SignalError) Error() string { return fmt.Sprintf("received signal %v", e.Signal) }

// SignalContext returns a context that is cancelled, with a *SignalError
// as its cause, on the first SIGINT or SIGTERM, which starts a graceful
// shutdown. After that first signal the default behaviour is restored, so
// a second one terminates the process at once. Call stop to release the
// signal handler early (for instance when main returns).
//
// Unlike helpers that keep package state, it may be called more than once;
// each call installs its own handler.
func SignalContext(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			cancel(&SignalError{Signal: s})
		case <-ctx.Done():
			signal.Stop(ch)
		}
	}()
	return ctx, func() { cancel(context.Canceled) }
}
