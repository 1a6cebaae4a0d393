package controller

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubego/kubego/informer"
)

// informerCount returns how many informers f holds, and how many have
// synced.
func informerCount(f *informer.Factory) (n, synced int) {
	for _, ok := range f.SyncStates() {
		n++
		if ok {
			synced++
		}
	}
	return n, synced
}

// A warm controller's informer runs on the factory from New on; a cold
// one's only from Start, and it reports no sync state before.
func TestStandbyDecidesWhenTheSourcesInformersRun(t *testing.T) {
	for _, tc := range []struct {
		standby     Standby
		beforeStart int
	}{
		{StandbyDefault, 1},
		{StandbyWarm, 1},
		{StandbyCold, 0},
	} {
		t.Run(tc.standby.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := newMemBackend(cm("a"), cm("b"))
				f := informer.NewFactory(src, informer.FactoryOptions{Reflector: informer.ReflectorOptions{DisableStreaming: true}})
				f.Start(t.Context())
				rec := &recorder{}
				c, err := New(f, Options{Reconciler: rec, Sources: []Source{For[*corev1.ConfigMap]{}}, Standby: tc.standby})
				if err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				if n, synced := informerCount(f); n != tc.beforeStart || synced != tc.beforeStart {
					t.Fatalf("before Start: %d informers, %d synced; want %d", n, synced, tc.beforeStart)
				}
				states := 0
				for range c.SyncStates() {
					states++
				}
				if states != tc.beforeStart {
					t.Fatalf("before Start: %d sync states, want %d", states, tc.beforeStart)
				}
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan error, 1)
				go func() { done <- c.Start(ctx) }()
				synctest.Wait()
				if n, synced := informerCount(f); n != 1 || synced != 1 {
					t.Fatalf("started: %d informers, %d synced; want 1", n, synced)
				}
				if got := rec.total(); got != 2 {
					t.Fatalf("%d reconciles, want 2", got)
				}
				cancel()
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				if n, _ := informerCount(f); n != 0 {
					t.Fatalf("stopped: %d informers left, want none", n)
				}
			})
		})
	}
}

func TestUnknownStandbyIsRefused(t *testing.T) {
	f := informer.NewFactory(newMemBackend(), informer.FactoryOptions{})
	_, err := New(f, Options{Reconciler: &recorder{}, Sources: []Source{For[*corev1.ConfigMap]{}}, Standby: StandbyCold + 1})
	if !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("New = %v, want ErrInvalidOptions", err)
	}
}
