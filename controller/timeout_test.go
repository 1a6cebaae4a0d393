package controller

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// A Reconcile that outlives Options.ReconcileTimeout finds its context
// ended, with ErrReconcileTimeout as the cause, exactly at the bound; and
// without the option a slow Reconcile keeps its context.
func TestReconcileTimeout(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		want    error
	}{
		{"the context ends at the timeout", 30 * time.Second, ErrReconcileTimeout},
		{"no timeout, no end", 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var (
					mu    sync.Mutex
					cause error
					took  time.Duration
				)
				rec := ReconcilerFunc(func(ctx context.Context, req Request) (Result, error) {
					start := time.Now()
					select {
					case <-ctx.Done():
					case <-time.After(time.Hour):
					}
					mu.Lock()
					cause, took = context.Cause(ctx), time.Since(start)
					mu.Unlock()
					return Result{}, TerminalError(errors.New("done"))
				})
				h := startController(t, newMemBackend(cm("a")), Options{Reconciler: rec, ReconcileTimeout: tc.timeout, Sources: []Source{For[*corev1.ConfigMap]{}}})
				time.Sleep(2 * time.Hour)
				synctest.Wait()
				mu.Lock()
				gotCause, gotTook := cause, took
				mu.Unlock()
				h.stop(t)
				if !errors.Is(gotCause, tc.want) {
					t.Fatalf("cause %v, want %v", gotCause, tc.want)
				}
				wantTook := tc.timeout
				if tc.timeout == 0 {
					wantTook = time.Hour
				}
				if gotTook != wantTook {
					t.Fatalf("Reconcile ran %s, want %s", gotTook, wantTook)
				}
			})
		})
	}
}

// With SyncPeriod every object of the For source is reconciled again at
// that period, without any change; without it, once.
func TestSyncPeriodReconcilesAgain(t *testing.T) {
	for _, tc := range []struct {
		name   string
		period time.Duration
		want   int
	}{
		{"every hour for three hours", time.Hour, 4},
		{"none: only the initial list", 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := &recorder{}
				h := startController(t, newMemBackend(cm("a")), Options{Reconciler: rec, SyncPeriod: tc.period, Sources: []Source{For[*corev1.ConfigMap]{}}})
				synctest.Wait()
				time.Sleep(3*time.Hour + time.Minute)
				synctest.Wait()
				h.stop(t)
				if got := rec.total(); got != tc.want {
					t.Fatalf("%d reconciles, want %d", got, tc.want)
				}
			})
		})
	}
}
