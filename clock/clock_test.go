package clock_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubego/kubego/clock"
)

func TestOrFallsBackToReal(t *testing.T) {
	if _, ok := clock.Or(nil).(clock.Real); !ok {
		t.Fatalf("Or(nil) = %T, want clock.Real", clock.Or(nil))
	}
	var c clock.Clock = stepClock{}
	if clock.Or(c) != c {
		t.Fatal("Or(c) did not return c")
	}
}

// stepClock is a Clock whose AfterFunc never fires; it tells Or apart from
// Real.
type stepClock struct{}

func (stepClock) Now() time.Time                              { return time.Time{} }
func (stepClock) AfterFunc(time.Duration, func()) clock.Timer { return stoppedTimer{} }

type stoppedTimer struct{}

func (stoppedTimer) Stop() bool               { return false }
func (stoppedTimer) Reset(time.Duration) bool { return false }

func TestSleep(t *testing.T) {
	tests := []struct {
		name      string
		d         time.Duration
		cancelAt  time.Duration // 0: never
		preCancel bool
		wantErr   error
		wantSlept time.Duration
	}{
		{name: "waits the whole duration", d: time.Minute, wantSlept: time.Minute},
		{name: "a non-positive duration does not wait", d: -time.Second, wantSlept: 0},
		{name: "ends early with the context", d: time.Hour, cancelAt: time.Second, wantErr: context.Canceled, wantSlept: time.Second},
		{name: "an ended context returns at once", d: time.Hour, preCancel: true, wantErr: context.Canceled, wantSlept: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tt.preCancel {
					cancel()
				}
				if tt.cancelAt > 0 {
					time.AfterFunc(tt.cancelAt, cancel)
				}
				start := time.Now()
				err := clock.Sleep(ctx, clock.Real{}, tt.d)
				if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				if got := time.Since(start); got != tt.wantSlept {
					t.Fatalf("slept %v, want %v", got, tt.wantSlept)
				}
			})
		})
	}
}

func TestNewTimer(t *testing.T) {
	t.Run("fires once after the duration", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			ch, _ := clock.NewTimer(clock.Real{}, 3*time.Second)
			at := <-ch
			if got := at.Sub(start); got != 3*time.Second {
				t.Fatalf("fired after %v", got)
			}
		})
	})
	t.Run("stop prevents the value", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ch, stop := clock.NewTimer(clock.Real{}, time.Second)
			if !stop() {
				t.Fatal("stop of a pending timer reported false")
			}
			time.Sleep(time.Minute)
			select {
			case <-ch:
				t.Fatal("stopped timer fired")
			default:
			}
			if stop() {
				t.Fatal("second stop reported true")
			}
		})
	})
	t.Run("an abandoned timer does not block", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			clock.NewTimer(clock.Real{}, time.Second)
			time.Sleep(2 * time.Second)
			synctest.Wait() // the callback must have returned: no goroutine left
		})
	})
}
