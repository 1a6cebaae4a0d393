package informer

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// gatedHandler is a handler whose OnAdd returns only once the test lets
// it: each value sent on release lets one callback return.
type gatedHandler struct {
	release chan struct{}
	adds    atomic.Int64 // callbacks that returned
}

func newGated() *gatedHandler { return &gatedHandler{release: make(chan struct{})} }

func (h *gatedHandler) OnAdd(*corev1.ConfigMap, bool) {
	<-h.release
	h.adds.Add(1)
}
func (h *gatedHandler) OnUpdate(_, _ *corev1.ConfigMap)  {}
func (h *gatedHandler) OnDelete(*corev1.ConfigMap, bool) {}

// waitAsync runs reg.WaitForSync(ctx) in the background; the channel gets
// its result, and the counter (when not nil) is read as it returns.
func waitAsync(ctx context.Context, reg *Registration, count *atomic.Int64) (<-chan error, *int64) {
	done := make(chan error, 1)
	var at int64 = -1
	go func() {
		err := reg.WaitForSync(ctx)
		if count != nil {
			at = count.Load()
		}
		done <- err
	}()
	return done, &at
}

func returned(done <-chan error) (error, bool) {
	select {
	case err := <-done:
		return err, true
	default:
		return nil, false
	}
}

// releaseEach lets h's next n callbacks return one at a time, failing t
// if the wait (done) returns before the last of them has been released.
func releaseEach(t *testing.T, h *gatedHandler, done <-chan error, n int, what string) {
	t.Helper()
	for range n {
		synctest.Wait()
		if _, ok := returned(done); ok {
			t.Fatalf("returned after %d of %d %s", h.adds.Load(), n, what)
		}
		h.release <- struct{}{}
	}
	synctest.Wait()
}

func TestRegistrationWaitForSync(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"a handler registered before the sync returns once every initial add was delivered", func(t *testing.T) {
			inf := listedInformer()
			h := newGated()
			reg, err := inf.AddEventHandler(h, HandlerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			done, at := waitAsync(t.Context(), reg, &h.adds)
			stop := start(t, inf)
			defer stop()
			releaseEach(t, h, done, 3, "initial adds")
			err, ok := returned(done)
			if !ok || err != nil {
				t.Fatalf("after the last initial add: returned %v, err %v", ok, err)
			}
			if *at != 3 || !reg.HasSynced() {
				t.Fatalf("returned with %d adds delivered, HasSynced %v", *at, reg.HasSynced())
			}
		}},
		{"a handler registered after the sync returns once its synthetic adds were delivered", func(t *testing.T) {
			inf := listedInformer()
			stop := start(t, inf)
			defer stop()
			if err := inf.WaitForSync(t.Context()); err != nil {
				t.Fatal(err)
			}
			h := newGated()
			reg, _ := inf.AddEventHandler(h, HandlerOptions{})
			done, at := waitAsync(t.Context(), reg, &h.adds)
			releaseEach(t, h, done, 3, "synthetic adds")
			if err, ok := returned(done); !ok || err != nil || *at != 3 {
				t.Fatalf("returned %v, err %v, adds at return %d", ok, err, *at)
			}
		}},
		{"an empty initial state syncs a handler registered after the sync at once", func(t *testing.T) {
			lw := (&fakeLW{}).onList(listOf("10")).onWatch(watchCh(watch.NewFake()))
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
			stop := start(t, inf)
			defer stop()
			inf.WaitForSync(t.Context())
			reg, _ := inf.AddEventHandler(newGated(), HandlerOptions{})
			if err := reg.WaitForSync(t.Context()); err != nil {
				t.Fatal(err)
			}
		}},
		{"a slow handler is waited for even when live events follow the initial state", func(t *testing.T) {
			w := watch.NewFake()
			lw := (&fakeLW{}).onList(listOf("10", objs()...)).onWatch(watchCh(w))
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
			h := newGated()
			reg, _ := inf.AddEventHandler(h, HandlerOptions{})
			stop := start(t, inf)
			defer stop()
			inf.WaitForSync(t.Context())
			w.Add(cm("ns", "d", "11")) // queued behind the initial adds
			done, at := waitAsync(t.Context(), reg, &h.adds)
			releaseEach(t, h, done, 3, "initial adds")
			if err, ok := returned(done); !ok || err != nil || *at != 3 {
				t.Fatalf("returned %v, err %v, adds at return %d (the live add must not be waited for)", ok, err, *at)
			}
			h.release <- struct{}{}
		}},
		{"Remove ends a wait in progress and later calls with ErrHandlerRemoved", func(t *testing.T) {
			inf := listedInformer()
			h := newGated()
			reg, _ := inf.AddEventHandler(h, HandlerOptions{})
			stop := start(t, inf)
			defer stop()
			done, _ := waitAsync(t.Context(), reg, nil)
			synctest.Wait()
			reg.Remove()
			h.release <- struct{}{} // the callback in flight finishes
			synctest.Wait()
			if err, ok := returned(done); !ok || !errors.Is(err, ErrHandlerRemoved) {
				t.Fatalf("wait in progress: returned %v, err %v", ok, err)
			}
			if err := reg.WaitForSync(t.Context()); !errors.Is(err, ErrHandlerRemoved) {
				t.Fatalf("after Remove: %v", err)
			}
		}},
		{"Remove before the informer runs ends the wait with ErrHandlerRemoved", func(t *testing.T) {
			inf := listedInformer()
			reg, _ := inf.AddEventHandler(newGated(), HandlerOptions{})
			done, _ := waitAsync(t.Context(), reg, nil)
			synctest.Wait()
			reg.Remove()
			synctest.Wait()
			if err, ok := returned(done); !ok || !errors.Is(err, ErrHandlerRemoved) {
				t.Fatalf("returned %v, err %v", ok, err)
			}
		}},
		{"a context ending while the handler is behind gives a SyncError with ErrHandlerPending", func(t *testing.T) {
			inf := listedInformer()
			h := newGated()
			reg, _ := inf.AddEventHandler(h, HandlerOptions{})
			stop := start(t, inf)
			defer stop()
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			err := reg.WaitForSync(ctx)
			var se *SyncError
			if !errors.As(err, &se) || !errors.Is(err, ErrHandlerPending) || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrNotSynced) {
				t.Fatalf("err = %v", err)
			}
			close(h.release) // lets Run return
		}},
		{"an informer stopping before the handler was delivered gives ErrStopped", func(t *testing.T) {
			inf := listedInformer()
			h := newGated()
			reg, _ := inf.AddEventHandler(h, HandlerOptions{})
			stop := start(t, inf)
			inf.WaitForSync(t.Context())
			done, _ := waitAsync(t.Context(), reg, nil)
			synctest.Wait() // the first initial add is in its callback
			go stop()
			synctest.Wait()
			h.release <- struct{}{} // the callback in flight finishes; Run then returns
			synctest.Wait()
			if err, ok := returned(done); !ok || !errors.Is(err, ErrStopped) {
				t.Fatalf("returned %v, err %v", ok, err)
			}
		}},
		{"an informer never run gives the informer's SyncError when the context ends", func(t *testing.T) {
			inf := New((&fakeLW{}), Options[*corev1.ConfigMap]{Reflector: noStream()})
			reg, _ := inf.AddEventHandler(newGated(), HandlerOptions{})
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			if err := reg.WaitForSync(ctx); !errors.Is(err, ErrNotStarted) {
				t.Fatalf("err = %v", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { synctest.Test(t, tc.run) })
	}
}

// objs returns the three objects of listedInformer's list.
func objs() []*corev1.ConfigMap {
	return []*corev1.ConfigMap{cm("ns", "a", "1"), cm("ns", "b", "2"), cm("ns", "c", "3")}
}

// listedInformer returns an informer (not running) whose list holds
// objs() and whose watch stays quiet.
func listedInformer() *Informer[*corev1.ConfigMap] {
	lw := (&fakeLW{}).onList(listOf("10", objs()...)).onWatch(watchCh(watch.NewFake()))
	return New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
}
