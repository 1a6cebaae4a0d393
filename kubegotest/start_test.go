package kubegotest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubego/kubego/kubegotest"
)

// recordTB records failures and cleanups instead of acting on them.
type recordTB struct {
	testing.TB
	failed   []string
	cleanups []func()
}

func (r *recordTB) Helper()          {}
func (r *recordTB) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recordTB) Errorf(format string, a ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, a...))
}
func (r *recordTB) Fatalf(format string, a ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, a...))
}
func (r *recordTB) Fatal(a ...any) { r.failed = append(r.failed, fmt.Sprint(a...)) }
func (r *recordTB) runCleanups() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

type starterFunc func(ctx context.Context) error

func (f starterFunc) Start(ctx context.Context) error { return f(ctx) }

var errBroken = errors.New("broken")

func TestStart(t *testing.T) {
	tests := []struct {
		name     string
		start    func(ctx context.Context) error
		stop     bool // the test calls Stop itself
		wantFail bool
	}{
		{"runs until the cleanup cancels it", func(ctx context.Context) error { <-ctx.Done(); return nil }, false, false},
		{"an error wrapping the cancellation is no failure", func(ctx context.Context) error { <-ctx.Done(); return fmt.Errorf("stopped: %w", ctx.Err()) }, false, false},
		{"an error of its own fails the test at cleanup", func(context.Context) error { return errBroken }, false, true},
		{"an error taken from Stop is the test's to judge", func(context.Context) error { return errBroken }, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := &recordTB{TB: t}
				r := kubegotest.Start(rec, starterFunc(tt.start))
				synctest.Wait()
				if tt.stop {
					if err := r.Stop(); !errors.Is(err, errBroken) {
						t.Errorf("Stop = %v, want the Starter's error", err)
					}
				}
				rec.runCleanups()
				select {
				case <-r.Done():
				default:
					t.Fatal("Start still running after the cleanup")
				}
				if failed := len(rec.failed) > 0; failed != tt.wantFail {
					t.Errorf("test failed: %v, want %v (%v)", failed, tt.wantFail, rec.failed)
				}
			})
		})
	}
}

type idler struct{ busy atomic.Bool }

func (i *idler) Idle() bool   { return !i.busy.Load() }
func (i *idler) Name() string { return "worker" }

func TestSettleWaitsForTheBubbleAndChecksIdleness(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var w idler
		w.busy.Store(true)
		go func() { w.busy.Store(false) }() // work that finishes without waiting on time
		rec := &recordTB{TB: t}
		kubegotest.Settle(rec, &w)
		if len(rec.failed) > 0 {
			t.Fatalf("Settle failed with the work done: %v", rec.failed)
		}

		w.busy.Store(true)
		done := make(chan struct{})
		go func() { // work that waits on time: only the test moves it
			time.Sleep(time.Minute)
			w.busy.Store(false)
			close(done)
		}()
		kubegotest.Settle(rec, &w)
		if len(rec.failed) != 1 || !strings.Contains(rec.failed[0], `"worker"`) {
			t.Fatalf("Settle with work waiting on time: failures %v, want one naming the worker", rec.failed)
		}
		time.Sleep(time.Minute)
		<-done
	})
}

func TestWaitIdlePollsUntilIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var w idler
		w.busy.Store(true)
		go func() { time.Sleep(30 * time.Millisecond); w.busy.Store(false) }()
		kubegotest.WaitIdle(t.Context(), t, &w)
		if !w.Idle() {
			t.Fatal("WaitIdle returned while busy")
		}
	})
}
