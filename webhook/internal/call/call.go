// Package call runs a webhook handler so that neither a panic nor a handler
// that outlives its request can take the server down or hold the answer:
// the caller gets the result, the panic, or the context's end, whichever
// comes first.
package call

import (
	"context"
	"fmt"
	"runtime/debug"
)

// PanicError is a panic recovered from a handler, with its stack.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("handler panicked: %v", e.Value) }

// Run calls f(ctx) in its own goroutine and returns its result. When f
// panics, err is a *PanicError. When ctx ends first, err is
// context.Cause(ctx) and f keeps running to its end in the background; its
// result is then dropped (f should watch ctx to stop early).
func Run[R any](ctx context.Context, f func(context.Context) R) (res R, err error) {
	type outcome struct {
		res R
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			if v := recover(); v != nil {
				o.err = &PanicError{Value: v, Stack: debug.Stack()}
			}
			done <- o
		}()
		o.res = f(ctx)
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-ctx.Done():
		return res, context.Cause(ctx)
	}
}
