package informer

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/backoff"
)

func forbidden() error { return apierrors.NewForbidden(gr, "", errors.New("no RBAC grant")) }
func notFound() error  { return apierrors.NewNotFound(gr, "") }

func watchFail(err error) watchFn {
	return func(metav1.ListOptions) (watch.Interface, error) { return nil, err }
}

// syncErr waits for inf's sync with a one-hour context and returns the
// *SyncError and how long (in fake time) WaitForSync took.
func syncErr(t *testing.T, inf *Informer[*corev1.ConfigMap], d time.Duration) (*SyncError, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	t0 := time.Now()
	err := inf.WaitForSync(ctx)
	var se *SyncError
	if err != nil && !errors.As(err, &se) {
		t.Fatalf("WaitForSync: %T %v, want a *SyncError", err, err)
	}
	return se, time.Since(t0)
}

func TestWaitForSyncFailFast(t *testing.T) {
	t.Run("403 on the stream and the LIST returns early after one backoff, with the cause", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := (&fakeLW{}).
				onWatch(watchFail(forbidden()), watchFail(forbidden())).
				onList(listErr(forbidden()))
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: ReflectorOptions{Backoff: backoff.Backoff{Jitter: -1}}})
			defer start(t, inf)()
			se, took := syncErr(t, inf, time.Hour)
			if se == nil || !se.Permanent || !apierrors.IsForbidden(se) || se.Ctx != nil || se.Attempts != 3 {
				t.Fatalf("got %#v, want a permanent Forbidden SyncError after 3 attempts", se)
			}
			if !errors.Is(se, ErrNotSynced) || errors.Is(se, context.DeadlineExceeded) {
				t.Errorf("SyncError %v: want ErrNotSynced and no context error", se)
			}
			if took != 800*time.Millisecond {
				t.Errorf("returned after %v, want one initial backoff (800ms)", took)
			}
			eq(t, "first calls", lw.callLog()[:3], []string{"watch rv= match=NotOlderThan stream", "list rv=", "watch rv= match=NotOlderThan stream"})
		})
	})

	t.Run("404 with LIST only returns after three failing LISTs and two backoffs", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := (&fakeLW{}).onList(listErr(notFound()), listErr(notFound()), listErr(notFound()))
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
			defer start(t, inf)()
			se, took := syncErr(t, inf, time.Hour)
			if se == nil || !se.Permanent || !apierrors.IsNotFound(se) {
				t.Fatalf("got %v, want a permanent NotFound SyncError", se)
			}
			if took != 800*time.Millisecond+1600*time.Millisecond {
				t.Errorf("returned after %v, want 2.4s", took)
			}
		})
	})

	t.Run("a transient failure breaks the streak", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := (&fakeLW{}).onList(
				listErr(forbidden()), listErr(forbidden()),
				listErr(apierrors.NewServiceUnavailable("busy")),
				listErr(forbidden()), listErr(forbidden()),
				listOf("5", cm("ns", "a", "1")),
			).onWatch(watchCh(watch.NewFake()))
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
			defer start(t, inf)()
			if se, _ := syncErr(t, inf, time.Hour); se != nil {
				t.Fatalf("WaitForSync = %v, want nil (never 3 permanent failures in a row)", se)
			}
		})
	})

	t.Run("FailFastAfter sets the streak length", func(t *testing.T) {
		for _, n := range []int{1, 5} {
			t.Run(fmt.Sprint(n), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					lw := &fakeLW{}
					for range n + 1 {
						lw.onList(listErr(forbidden()))
					}
					inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream(), FailFastAfter: n})
					defer start(t, inf)()
					se, _ := syncErr(t, inf, time.Hour)
					if se == nil || !se.Permanent || se.Attempts != n {
						t.Fatalf("got %v, want permanent after %d attempts", se, n)
					}
				})
			})
		}
	})

	t.Run("a negative FailFastAfter waits for the context", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := &fakeLW{}
			for range 20 {
				lw.onList(listErr(forbidden()))
			}
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream(), FailFastAfter: -1})
			defer start(t, inf)()
			se, took := syncErr(t, inf, time.Minute)
			if se == nil || se.Permanent || !apierrors.IsForbidden(se) || !errors.Is(se, context.DeadlineExceeded) || took != time.Minute {
				t.Fatalf("got %v after %v, want the context's deadline with a Forbidden cause", se, took)
			}
		})
	})

	t.Run("the informer keeps retrying and syncs once access is granted", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := (&fakeLW{}).onList(
				listErr(forbidden()), listErr(forbidden()), listErr(forbidden()),
				listOf("5", cm("ns", "a", "1")),
			).onWatch(watchCh(watch.NewFake()))
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
			defer start(t, inf)()
			if se, _ := syncErr(t, inf, time.Hour); se == nil || !se.Permanent {
				t.Fatalf("first WaitForSync = %v, want permanent", se)
			}
			// Still failing permanently: a second call returns at once.
			if se, took := syncErr(t, inf, time.Hour); se == nil || !se.Permanent || took != 0 {
				t.Fatalf("second WaitForSync = %v after %v, want permanent at once", se, took)
			}
			time.Sleep(3200 * time.Millisecond) // the third backoff; the next LIST succeeds
			synctest.Wait()
			if se, _ := syncErr(t, inf, time.Hour); se != nil {
				t.Fatalf("WaitForSync after the grant = %v, want nil", se)
			}
			if _, ok := inf.Lister().Namespace("ns").Get("a"); !ok {
				t.Error("cache misses ns/a")
			}
		})
	})

	t.Run("a permanently failing Backend fails fast too", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			unknown := fmt.Errorf("no resource for type Widget: %w", ErrPermanent)
			inf := newInformer(func(context.Context) (ListerWatcher[*corev1.ConfigMap], error) { return nil, unknown },
				Options[*corev1.ConfigMap]{Reflector: noStream()})
			defer start(t, inf)()
			se, _ := syncErr(t, inf, time.Hour)
			if se == nil || !se.Permanent || !errors.Is(se, unknown) || se.Attempts != 3 {
				t.Fatalf("got %v, want permanent with the Backend's error after 3 attempts", se)
			}
		})
	})
}

func TestIsPermanent(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{forbidden(), true},
		{notFound(), true},
		{apierrors.NewUnauthorized("who"), true},
		{fmt.Errorf("list: %w", forbidden()), true},
		{fmt.Errorf("type: %w", ErrPermanent), true},
		{apierrors.NewServiceUnavailable("busy"), false},
		{apierrors.NewTooManyRequests("slow down", 1), false},
		{gone(), false},
		{ErrInitialEventsNotFinished, false},
		{context.DeadlineExceeded, false},
	} {
		if got := isPermanent(c.err); got != c.want {
			t.Errorf("IsPermanent(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
