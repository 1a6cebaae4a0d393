package informer

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
)

func TestInformer(t *testing.T) {
	t.Run("initial paginated list then watch events reach handlers and store", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := watch.NewFake()
			lw := (&fakeLW{}).onList(
				func(o metav1.ListOptions) (ListResult[*corev1.ConfigMap], error) {
					if o.Limit != 500 || o.ResourceVersion != "" || o.ResourceVersionMatch != "" {
						t.Errorf("first page options %+v", o)
					}
					return ListResult[*corev1.ConfigMap]{Items: []*corev1.ConfigMap{cm("ns", "a", "1")}, ResourceVersion: "10", Continue: "c1"}, nil
				},
				listOf("10", cm("ns", "b", "2")),
			).onWatch(watchCh(w))
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
			rec := &recorder{}
			if _, err := inf.AddEventHandler(rec, HandlerOptions{}); err != nil {
				t.Fatal(err)
			}
			stop := start(t, inf)
			if err := inf.WaitForSync(t.Context()); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			eq(t, "initial events", sorted(rec.take()), []string{"add ns/a@1 initial", "add ns/b@2 initial"})
			w.Add(cm("ns", "c", "11"))
			w.Modify(cm("ns", "a", "12"))
			w.Delete(cm("ns", "b", "13"))
			synctest.Wait()
			eq(t, "watch events", rec.take(), []string{"add ns/c@11", "update ns/a@1->12", "delete ns/b@13"})
			eq(t, "calls", lw.callLog(), []string{"list rv=", "list rv= continue=c1", "watch rv=10"})
			if got := inf.LastSyncResourceVersion(); got != "13" {
				t.Errorf("LastSyncResourceVersion = %q, want 13", got)
			}
			if o, ok := inf.Lister().Namespace("ns").Get("a"); !ok || o.ResourceVersion != "12" {
				t.Errorf("lister Get(ns/a) = %v, %v", o, ok)
			}
			if n := len(inf.Lister().List(nil)); n != 2 {
				t.Errorf("store holds %d objects, want 2", n)
			}
			if err := stop(); err != nil {
				t.Fatal(err)
			}
		})
	})

	t.Run("streaming initial state ends at the initial-events-end bookmark and the watch continues", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := watch.NewFakeWithChanSize(10, false)
			w.Add(cm("ns", "a", "1"))
			w.Add(cm("ns", "b", "2"))
			w.Action(bookmark("5", true).Type, bookmark("5", true).Object)
			var got metav1.ListOptions
			lw := (&fakeLW{}).onWatch(func(o metav1.ListOptions) (watch.Interface, error) { got = o; return w, nil })
			inf := New(lw, Options[*corev1.ConfigMap]{})
			rec := &recorder{}
			inf.AddEventHandler(rec, HandlerOptions{})
			stop := start(t, inf)
			defer stop()
			if err := inf.WaitForSync(t.Context()); err != nil {
				t.Fatal(err)
			}
			if got.SendInitialEvents == nil || !*got.SendInitialEvents || got.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan ||
				!got.AllowWatchBookmarks || got.ResourceVersion != "" || got.TimeoutSeconds == nil {
				t.Errorf("streaming watch options %+v", got)
			}
			if ts := *got.TimeoutSeconds; ts < 300 || ts >= 600 {
				t.Errorf("timeoutSeconds = %d, want in [300, 600)", ts)
			}
			w.Modify(cm("ns", "a", "6"))
			synctest.Wait()
			eq(t, "events", rec.take(), []string{"add ns/a@1 initial", "add ns/b@2 initial", "update ns/a@1->6"})
			eq(t, "calls", lw.callLog(), []string{"watch rv= match=NotOlderThan stream"})
		})
	})

	t.Run("streaming whose end bookmark never comes falls back to list after the bounded wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := watch.NewFakeWithChanSize(10, false)
			w.Add(cm("ns", "a", "1"))
			lw := (&fakeLW{}).onWatch(watchCh(w)).onList(listOf("7", cm("ns", "a", "1"), cm("ns", "b", "3")))
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: ReflectorOptions{InitialEventsTimeout: 10 * time.Second}})
			stop := start(t, inf)
			defer stop()
			t0 := time.Now()
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			err := inf.WaitForSync(ctx)
			cancel()
			if err == nil || !errors.Is(err, ErrNotSynced) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("WaitForSync before the fallback = %v", err)
			}
			if err := inf.WaitForSync(t.Context()); err != nil {
				t.Fatal(err)
			}
			calls := lw.callList()
			if len(calls) < 2 || calls[1].verb != "list" || calls[1].at.Sub(t0) != 10*time.Second {
				t.Fatalf("calls %v, list at %v after start", lw.callLog(), calls[len(calls)-1].at.Sub(t0))
			}
			if inf.Lister().Len() != 2 {
				t.Fatalf("store has %d objects", inf.Lister().Len())
			}
		})
	})

	t.Run("server rejecting streaming makes the reflector list", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := (&fakeLW{}).onWatch(watchErr2(apierrors.NewInvalid(schema0(), "", nil))).onList(listOf("3", cm("ns", "a", "1")))
			inf := New(lw, Options[*corev1.ConfigMap]{})
			stop := start(t, inf)
			defer stop()
			if err := inf.WaitForSync(t.Context()); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			eq(t, "calls", lw.callLog(), []string{"watch rv= match=NotOlderThan stream", "list rv=", "watch rv=3"})
		})
	})

	t.Run("dropped watch resumes from the last resourceVersion without relisting", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := (&fakeLW{}).onList(listOf("10", cm("ns", "a", "1"))).onWatch(
				watchWith(true, ev(watch.Modified, cm("ns", "a", "11"))),
				watchWith(true, ev(watch.Modified, cm("ns", "a", "12"))),
			)
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
			stop := start(t, inf)
			defer stop()
			synctest.Wait()
			eq(t, "calls", lw.callLog(), []string{"list rv=", "watch rv=10", "watch rv=11", "watch rv=12"})
		})
	})

	t.Run("bookmarks advance the resourceVersion the next watch starts from", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := (&fakeLW{}).onList(listOf("10")).onWatch(watchWith(true, bookmark("42", false)))
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
			stop := start(t, inf)
			defer stop()
			synctest.Wait()
			eq(t, "calls", lw.callLog(), []string{"list rv=", "watch rv=10", "watch rv=42"})
			if inf.LastSyncResourceVersion() != "42" {
				t.Fatalf("LastSyncResourceVersion = %q", inf.LastSyncResourceVersion())
			}
		})
	})

	t.Run("410 relists from the last resourceVersion, then from the latest, and deletes what vanished", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := (&fakeLW{}).onList(
				listOf("10", cm("ns", "a", "1"), cm("ns", "b", "2")),
				listErr(gone()),
				listOf("30", cm("ns", "a", "1"), cm("ns", "c", "25")),
			).onWatch(
				watchWith(true, ev(watch.Modified, cm("ns", "b", "11")), errEvent(gone())),
			)
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
			rec := &recorder{}
			inf.AddEventHandler(rec, HandlerOptions{})
			stop := start(t, inf)
			defer stop()
			synctest.Wait()
			eq(t, "calls", lw.callLog(), []string{"list rv=", "watch rv=10", "list rv=11 match=NotOlderThan", "list rv=", "watch rv=30"})
			got := rec.take()
			eq(t, "initial", sorted(got[:2]), []string{"add ns/a@1 initial", "add ns/b@2 initial"})
			eq(t, "watch", got[2:3], []string{"update ns/b@2->11"})
			eq(t, "relist batch", sorted(got[3:]), []string{"add ns/c@25", "delete ns/b@11 final-state-unknown", "update ns/a@1->1"})
			a1, _ := inf.Lister().GetKey(Key{"ns", "a"})
			if a1.ResourceVersion != "1" {
				t.Fatalf("a = %v", a1)
			}
		})
	})

	t.Run("an unchanged object keeps its cached pointer across a relist", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := (&fakeLW{}).onList(listOf("10", cm("ns", "a", "1")), listOf("20", cm("ns", "a", "1"))).
				onWatch(watchWith(true, errEvent(gone())))
			inf := New(lw, Options[*corev1.ConfigMap]{Decoded: true, Reflector: noStream()})
			stop := start(t, inf)
			defer stop()
			inf.WaitForSync(t.Context())
			before, _ := inf.Lister().GetKey(Key{"ns", "a"})
			synctest.Wait()
			after, _ := inf.Lister().GetKey(Key{"ns", "a"})
			if before != after {
				t.Fatal("relisted unchanged object replaced the cached pointer")
			}
			if n := len(lw.callLog()); n != 4 {
				t.Fatalf("calls %v", lw.callLog())
			}
		})
	})

	t.Run("WaitForSync returns the cause: forbidden", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			forbidden := apierrors.NewForbidden(gr, "", errors.New("no RBAC"))
			lw := &fakeLW{}
			for range 10 {
				lw.onList(listErr(forbidden))
			}
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
			stop := start(t, inf)
			defer stop()
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			err := inf.WaitForSync(ctx)
			var se *SyncError
			if !errors.As(err, &se) || !apierrors.IsForbidden(err) || se.Attempts < 2 {
				t.Fatalf("WaitForSync = %v, want a *SyncError wrapping Forbidden", err)
			}
		})
	})

	t.Run("WaitForSync on an informer never started says so", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			inf := New(&fakeLW{}, Options[*corev1.ConfigMap]{})
			ctx, cancel := context.WithTimeout(t.Context(), time.Second)
			defer cancel()
			if err := inf.WaitForSync(ctx); !errors.Is(err, ErrNotStarted) {
				t.Fatalf("WaitForSync = %v, want ErrNotStarted", err)
			}
		})
	})

	t.Run("managedFields are dropped by default and kept on request, transform runs before storing", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			mk := func() *corev1.ConfigMap {
				o := cm("ns", "a", "1")
				o.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
				o.Data = map[string]string{"big": "x"}
				return o
			}
			drop := New((&fakeLW{}).onList(listOf("1", mk())), Options[*corev1.ConfigMap]{Reflector: noStream(),
				Transform: func(o *corev1.ConfigMap) *corev1.ConfigMap { o.Data = nil; return o }})
			keep := New((&fakeLW{}).onList(listOf("1", mk())), Options[*corev1.ConfigMap]{Reflector: noStream(), KeepManagedFields: true})
			s1, s2 := start(t, drop), start(t, keep)
			defer s1()
			defer s2()
			drop.WaitForSync(t.Context())
			keep.WaitForSync(t.Context())
			a, _ := drop.Lister().GetKey(Key{"ns", "a"})
			b, _ := keep.Lister().GetKey(Key{"ns", "a"})
			if a.ManagedFields != nil || a.Data != nil {
				t.Errorf("default informer kept managedFields or untransformed data: %+v", a)
			}
			if len(b.ManagedFields) != 1 {
				t.Errorf("KeepManagedFields informer dropped them")
			}
		})
	})

	t.Run("cached objects share equal label maps unless sharing is disabled", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			list := func() listFn {
				// Values are shared from their second sighting on (x is the first).
				return listOf("9", cm("ns", "x", "1", "app", "web"), cm("ns", "a", "1", "app", "web"), cm("ns", "b", "2", "app", "web"), cm("ns", "c", "3", "app", "db"))
			}
			shared := New((&fakeLW{}).onList(list()), Options[*corev1.ConfigMap]{Decoded: true, Reflector: noStream()})
			distinct := New((&fakeLW{}).onList(list()), Options[*corev1.ConfigMap]{Decoded: true, Reflector: noStream(), DisableSharing: true})
			s1, s2 := start(t, shared), start(t, distinct)
			defer s1()
			defer s2()
			shared.WaitForSync(t.Context())
			distinct.WaitForSync(t.Context())
			same := func(inf *Informer[*corev1.ConfigMap], x, y string) bool {
				a, _ := inf.Lister().GetKey(Key{"ns", x})
				b, _ := inf.Lister().GetKey(Key{"ns", y})
				return reflect.ValueOf(a.Labels).UnsafePointer() == reflect.ValueOf(b.Labels).UnsafePointer()
			}
			if !same(shared, "a", "b") {
				t.Error("equal label maps were not shared")
			}
			if same(shared, "a", "c") {
				t.Error("different label maps were shared")
			}
			if same(distinct, "a", "b") {
				t.Error("DisableSharing informer shared label maps")
			}
			if c, _ := shared.Lister().GetKey(Key{"ns", "c"}); c.Labels["app"] != "db" {
				t.Errorf("labels of c = %v", c.Labels)
			}
		})
	})
}

func TestHandlers(t *testing.T) {
	t.Run("a handler added after sync gets synthetic adds, a removed handler gets nothing more", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := watch.NewFake()
			lw := (&fakeLW{}).onList(listOf("10", cm("ns", "a", "1"), cm("ns", "b", "2"))).onWatch(watchCh(w))
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
			stop := start(t, inf)
			defer stop()
			inf.WaitForSync(t.Context())
			rec := &recorder{}
			reg, err := inf.AddEventHandler(rec, HandlerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			if !reg.HasSynced() {
				t.Fatal("registration not synced after its synthetic adds")
			}
			eq(t, "synthetic adds", sorted(rec.take()), []string{"add ns/a@1 initial", "add ns/b@2 initial"})
			w.Add(cm("ns", "c", "11"))
			synctest.Wait()
			eq(t, "live", rec.take(), []string{"add ns/c@11"})
			reg.Remove()
			reg.Remove()
			w.Add(cm("ns", "d", "12"))
			synctest.Wait()
			eq(t, "after Remove", rec.take(), nil)
		})
	})

	t.Run("a slow handler blocks neither the other handlers nor the reflector", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := watch.NewFake()
			lw := (&fakeLW{}).onList(listOf("10")).onWatch(watchCh(w))
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
			release := make(chan struct{})
			slow := HandlerFuncs[*corev1.ConfigMap]{AddFunc: func(*corev1.ConfigMap, bool) { <-release }}
			regSlow, _ := inf.AddEventHandler(slow, HandlerOptions{})
			fast := &recorder{}
			inf.AddEventHandler(fast, HandlerOptions{})
			stop := start(t, inf)
			defer stop()
			inf.WaitForSync(t.Context())
			for i := range 100 {
				w.Add(cm("ns", "o"+string(rune('a'+i%26))+string(rune('a'+i/26)), strconv.Itoa(11+i)))
			}
			synctest.Wait()
			if n := len(fast.take()); n != 100 {
				t.Fatalf("fast handler got %d events, want 100", n)
			}
			if inf.Lister().Len() != 100 {
				t.Fatalf("store has %d objects", inf.Lister().Len())
			}
			if p := regSlow.Pending(); p != 100 {
				close(release)
				t.Fatalf("slow handler pending = %d, want 100 (one in its callback)", p)
			}
			close(release)
			synctest.Wait()
			if p := regSlow.Pending(); p != 0 {
				t.Fatalf("slow handler pending = %d after release", p)
			}
		})
	})

	t.Run("resync re-delivers cached objects at the handler's period", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := (&fakeLW{}).onList(listOf("10", cm("ns", "a", "1"))).onWatch(watchCh(watch.NewFake()))
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
			rec, none := &recorder{}, &recorder{}
			inf.AddEventHandler(rec, HandlerOptions{ResyncPeriod: time.Minute})
			inf.AddEventHandler(none, HandlerOptions{})
			stop := start(t, inf)
			defer stop()
			inf.WaitForSync(t.Context())
			synctest.Wait()
			rec.take()
			none.take()
			time.Sleep(59 * time.Second) // fake time inside the bubble
			synctest.Wait()
			eq(t, "before the period", rec.take(), nil)
			time.Sleep(2 * time.Second)
			synctest.Wait()
			eq(t, "at the period", rec.take(), []string{"update ns/a@1->1"})
			time.Sleep(time.Minute)
			synctest.Wait()
			eq(t, "next period", rec.take(), []string{"update ns/a@1->1"})
			eq(t, "handler without resync", none.take(), nil)
		})
	})

	t.Run("a delete for an unknown object is not delivered, so deletes never repeat", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := (&fakeLW{}).onList(listOf("10", cm("ns", "a", "1"))).onWatch(
				watchWith(false, ev(watch.Deleted, cm("ns", "a", "11")), ev(watch.Deleted, cm("ns", "a", "11")), ev(watch.Deleted, cm("ns", "zz", "12"))))
			inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
			rec := &recorder{}
			inf.AddEventHandler(rec, HandlerOptions{})
			stop := start(t, inf)
			defer stop()
			synctest.Wait()
			eq(t, "events", rec.take(), []string{"add ns/a@1 initial", "delete ns/a@11"})
		})
	})
}

func TestMutationDetector(t *testing.T) {
	t.Run("mutating a cached object is reported naming the key and field", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := watch.NewFake()
			lw := (&fakeLW{}).onList(listOf("10", cm("ns", "a", "1", "app", "web"))).onWatch(watchCh(w))
			var reported []*MutationError
			inf := New(lw, Options[*corev1.ConfigMap]{Decoded: true, Reflector: noStream(), MutationReporter: func(e *MutationError) { reported = append(reported, e) }})
			stop := start(t, inf)
			inf.WaitForSync(t.Context())
			o, _ := inf.Lister().Namespace("ns").Get("a")
			o.Labels["app"] = "mutated" // the bug under test
			w.Modify(cm("ns", "a", "11", "app", "web"))
			synctest.Wait()
			if len(reported) != 1 {
				t.Fatalf("reported %d mutations, want 1 at the next write", len(reported))
			}
			e := reported[0]
			if e.Key != (Key{"ns", "a"}) || len(e.Paths) != 1 || e.Paths[0] != "metadata.labels.app" {
				t.Fatalf("MutationError = %+v", e)
			}
			err := stop()
			if !errors.Is(err, ErrCachedObjectMutated) {
				t.Fatalf("Run returned %v, want the mutation", err)
			}
		})
	})

	t.Run("CheckMutations finds a mutation on demand", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := (&fakeLW{}).onList(listOf("10", cm("ns", "a", "1")))
			inf := New(lw, Options[*corev1.ConfigMap]{Decoded: true, Reflector: noStream(), MutationReporter: func(*MutationError) {}})
			stop := start(t, inf)
			defer stop()
			inf.WaitForSync(t.Context())
			if err := inf.CheckMutations(); err != nil {
				t.Fatal(err)
			}
			o, _ := inf.Lister().GetKey(Key{"ns", "a"})
			o.Data = map[string]string{"password": "hunter2"}
			err := inf.CheckMutations()
			var me *MutationError
			if !errors.As(err, &me) || me.Paths[0] != "data" {
				t.Fatalf("CheckMutations = %v", err)
			}
			if contains(err.Error(), "hunter2") {
				t.Fatal("mutation error leaks the value")
			}
			o.Data = nil
		})
	})

	t.Run("detection is off when disabled", func(t *testing.T) {
		inf := New(&fakeLW{}, Options[*corev1.ConfigMap]{Decoded: true, MutationDetection: DetectOff})
		if inf.detect != nil {
			t.Fatal("detector on")
		}
		if on := New(&fakeLW{}, Options[*corev1.ConfigMap]{Decoded: true}); on.detect == nil {
			t.Fatal("detector off under go test")
		}
	})
}

func contains(s, sub string) bool {
	return len(sub) > 0 && len(s) >= len(sub) && (s == sub || indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

var _ = labels.Everything

func TestRemoveDuringABatchStopsDelivery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		objs := make([]*corev1.ConfigMap, 100)
		for i := range objs {
			objs[i] = cm("ns", "o"+itoa(i+1), "1")
		}
		lw := (&fakeLW{}).onList(listOf("10", objs...)).onWatch(watchCh(watch.NewFake()))
		inf := New(lw, Options[*corev1.ConfigMap]{Reflector: noStream()})
		var reg *Registration
		n := 0
		reg, _ = inf.AddEventHandler(HandlerFuncs[*corev1.ConfigMap]{AddFunc: func(*corev1.ConfigMap, bool) {
			n++
			if n == 3 {
				reg.Remove() // from inside the handler
			}
		}}, HandlerOptions{})
		stop := start(t, inf)
		defer stop()
		synctest.Wait()
		if n != 3 {
			t.Fatalf("handler called %d times, want 3", n)
		}
	})
}
