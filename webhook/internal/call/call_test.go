package call

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

func TestRunReturnsTheResult(t *testing.T) {
	got, err := Run(t.Context(), func(context.Context) int { return 7 })
	if err != nil || got != 7 {
		t.Fatalf("Run = %d, %v; want 7, nil", got, err)
	}
}

func TestRunTurnsAPanicIntoAnError(t *testing.T) {
	_, err := Run(t.Context(), func(context.Context) int { panic("boom") })
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value != "boom" || len(pe.Stack) == 0 {
		t.Fatalf("err = %v, want a *PanicError with value boom and a stack", err)
	}
}

func TestRunGivesUpWhenTheContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		release := make(chan struct{})
		_, err := Run(ctx, func(context.Context) int { <-release; return 1 })
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want DeadlineExceeded", err)
		}
		close(release) // the handler ends; nothing leaks past the bubble
	})
}
