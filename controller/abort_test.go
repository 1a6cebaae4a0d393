package controller

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubego/kubego/informer"
)

func TestStartAbortableCancelsReconcilesAtOnceWhenAborted(t *testing.T) {
	tests := []struct {
		name        string
		abort       bool          // cancel abort (else ctx) while a reconcile is in flight
		wantStopAt  time.Duration // since the cancel
		wantCtxDone bool          // the reconcile saw its ctx cancelled
	}{
		{"abort skips the drain", true, 0, true},
		{"ctx drains as Start does", false, 3 * time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				started := make(chan struct{})
				var sawCancel bool
				rec := &recorder{fn: func(ctx context.Context, _ Request, n int) (Result, error) {
					if n > 1 {
						return Result{}, nil
					}
					close(started)
					select {
					case <-time.After(3 * time.Second):
						return Result{}, nil
					case <-ctx.Done():
						sawCancel = true
						return Result{}, ctx.Err()
					}
				}}
				f := informer.NewFactory(newMemBackend(cm("a")), informer.FactoryOptions{Reflector: informer.ReflectorOptions{DisableStreaming: true}})
				c, err := New(f, Options{Reconciler: rec, DrainTimeout: time.Hour, Sources: []Source{For[*corev1.ConfigMap]{}}})
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				abort, abortNow := context.WithCancel(t.Context())
				defer abortNow()
				done := make(chan error, 1)
				go func() { done <- c.StartAbortable(ctx, abort) }()
				<-started
				t0 := time.Now()
				if tt.abort {
					abortNow()
				} else {
					cancel()
				}
				if err := <-done; err != nil {
					t.Fatalf("StartAbortable: %v", err)
				}
				if got := time.Since(t0); got != tt.wantStopAt {
					t.Errorf("returned %v after the cancel, want %v", got, tt.wantStopAt)
				}
				if sawCancel != tt.wantCtxDone {
					t.Errorf("reconcile saw its ctx cancelled = %v, want %v", sawCancel, tt.wantCtxDone)
				}
				cancel()
				_ = f.Wait()
			})
		})
	}
}

func TestSyncStatesReportEachSourcesInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newMemBackend(cm("a"))
		gate := make(chan struct{})
		src.gate = gate
		h := startController(t, src, Options{Reconciler: &recorder{}, Sources: []Source{
			For[*corev1.ConfigMap]{},
			Watches[*corev1.ConfigMap]{Map: nil},
		}})
		states := func() (names []string, synced []bool) {
			for name, ok := range h.ctl.SyncStates() {
				names = append(names, name)
				synced = append(synced, ok)
			}
			return names, synced
		}
		synctest.Wait()
		names, synced := states()
		if len(names) != 2 || names[0] == "" || names[0] != names[1] || synced[0] || synced[1] {
			t.Fatalf("before the list: %q %v, want one shared informer twice, not synced", names, synced)
		}
		close(gate)
		synctest.Wait()
		if _, synced := states(); !synced[0] || !synced[1] {
			t.Errorf("after the list: synced %v", synced)
		}
		for range h.ctl.SyncStates() {
			break // stopping early must not panic
		}
		h.stop(t)
	})
}
