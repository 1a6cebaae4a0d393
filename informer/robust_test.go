package informer

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// Faults found by the fault-injection suite (faults/, scenarios 7 and 12):
// replayed events, a watch that hangs after its headers, a LIST that hangs
// mid-body.
func TestReflectorSurvivesMisbehavingServers(t *testing.T) {
	t.Run("duplicated and replayed watch events are dropped", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := watch.NewFake()
			lw := (&fakeLW{}).onList(listOf("10", cm("ns", "a", "5"))).onWatch(watchCh(w))
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
			rec := &recorder{}
			inf.AddEventHandler(rec, HandlerOptions{})
			stop := start(t, inf)
			defer stop()
			inf.WaitForSync(t.Context())
			synctest.Wait()
			rec.take()
			w.Modify(cm("ns", "a", "11"))
			w.Modify(cm("ns", "a", "11")) // duplicate
			w.Add(cm("ns", "b", "12"))
			w.Modify(cm("ns", "a", "11")) // replay of an older event
			w.Delete(cm("ns", "a", "9"))  // replay from before the list
			w.Modify(cm("ns", "a", "13"))
			synctest.Wait()
			eq(t, "notifications", rec.take(), []string{"update ns/a@5->11", "add ns/b@12", "update ns/a@11->13"})
			if got, _ := inf.Lister().GetKey(Key{Namespace: "ns", Name: "a"}); got == nil || got.ResourceVersion != "13" {
				t.Fatalf("cached a = %v, want resourceVersion 13", got)
			}
			if rv := inf.LastSyncResourceVersion(); rv != "13" {
				t.Fatalf("LastSyncResourceVersion %q, want 13", rv)
			}
		})
	})

	t.Run("a watch silent past its timeout is abandoned and reopened", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			hung := watch.NewFake() // sends nothing and never closes
			next := watch.NewFake()
			lw := (&fakeLW{}).onList(listOf("10")).onWatch(watchCh(hung), watchCh(next))
			opts := noStream()
			opts.MinWatchTimeout = 4 * time.Second // timeoutSeconds in [4, 8)
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: opts})
			stop := start(t, inf)
			defer stop()
			inf.WaitForSync(t.Context())
			began := time.Now()
			synctest.Wait()
			for len(watchCalls(lw)) < 2 {
				time.Sleep(100 * time.Millisecond)
				if time.Since(began) > time.Minute {
					t.Fatal("the silent watch was never abandoned")
				}
			}
			// timeoutSeconds < 8 s plus a grace of 2 s, plus one poll.
			if took := time.Since(began); took > 10*time.Second+100*time.Millisecond {
				t.Fatalf("reopened after %s, want ≤ 10.1s", took)
			}
			if err, _ := inf.refl.Load().LastError(); !errors.Is(err, ErrWatchStalled) {
				t.Fatalf("last error %v, want ErrWatchStalled", err)
			}
			next.Add(cm("ns", "c", "11"))
			synctest.Wait()
			if _, ok := inf.Lister().GetKey(Key{Namespace: "ns", Name: "c"}); !ok {
				t.Fatal("events on the new watch are not applied")
			}
			hung.Stop()
		})
	})

	t.Run("a LIST that fails at once is not called a timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := (&fakeLW{}).onList(listErr(apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errString("no RBAC"))))
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
			stop := start(t, inf)
			defer stop()
			synctest.Wait()
			err, _ := inf.refl.Load().LastError()
			if !apierrors.IsForbidden(err) || errors.Is(err, ErrListTimeout) || strings.Contains(err.Error(), "timed out") {
				t.Fatalf("last error %v, want the 403 alone", err)
			}
		})
	})

	t.Run("a LIST that never completes times out and is retried", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := &fakeLW{} // no scripted answer: List blocks until its ctx ends
			opts := noStream()
			opts.ListTimeout = 5 * time.Second
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: opts})
			stop := start(t, inf)
			defer stop()
			time.Sleep(6 * time.Second)
			synctest.Wait()
			if err, _ := inf.refl.Load().LastError(); !errors.Is(err, ErrListTimeout) {
				t.Fatalf("last error %v, want ErrListTimeout", err)
			}
			lw.onList(listOf("20", cm("ns", "x", "20")))
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			if err := inf.WaitForSync(ctx); err != nil {
				t.Fatalf("after the server answers: %v", err)
			}
			if n := len(lw.callList()); n < 2 {
				t.Fatalf("%d LIST calls, want a retry", n)
			}
		})
	})
}

func watchCalls(lw *fakeLW) []call {
	var out []call
	for _, c := range lw.callList() {
		if c.verb == "watch" {
			out = append(out, c)
		}
	}
	return out
}
