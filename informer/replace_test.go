package informer

import (
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// representations are the two forms of a cache, for tests that must hold
// for both.
var representations = []struct {
	name    string
	decoded bool
}{{"compact", false}, {"decoded", true}}

// contents returns what inf's cache holds, as sorted "ns/name@rv".
func contents[T Object](inf *Informer[T]) []string {
	var out []string
	for _, o := range inf.Lister().List(nil) {
		out = append(out, KeyOf(o).String()+"@"+o.GetResourceVersion())
	}
	slices.Sort(out)
	return out
}

// page returns a LIST page with a continue token.
func page(rv, cont string, objs ...*corev1.ConfigMap) listFn {
	return func(metav1.ListOptions) (ListResult[*corev1.ConfigMap], error) {
		return ListResult[*corev1.ConfigMap]{Items: objs, ResourceVersion: rv, Continue: cont}, nil
	}
}

func TestRelistReplacesTheCacheAtomically(t *testing.T) {
	for _, rep := range representations {
		t.Run(rep.name, func(t *testing.T) {
			t.Run("a relist that fails after some pages leaves the cache and handlers as they were; the next one deletes what vanished", func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					var inf *Informer[*corev1.ConfigMap]
					var during []string
					lw := (&fakeLW{}).onList(
						listOf("10", cm("ns", "a", "1"), cm("ns", "b", "2")),
						page("20", "c1", cm("ns", "a", "20"), cm("ns", "c", "21")),
						func(metav1.ListOptions) (ListResult[*corev1.ConfigMap], error) {
							during = contents(inf)
							return ListResult[*corev1.ConfigMap]{}, apierrors.NewInternalError(errors.New("etcd unavailable"))
						},
						listOf("30", cm("ns", "a", "20"), cm("ns", "c", "21")),
					).onWatch(watchWith(true, errEvent(gone())))
					inf = New(lw, Options[*corev1.ConfigMap]{Decoded: rep.decoded, Reflector: noStream()})
					rec := &recorder{}
					inf.AddEventHandler(rec, HandlerOptions{})
					stop := start(t, inf)
					defer stop()
					synctest.Wait()
					eq(t, "cache while the relist's second page was fetched", during, []string{"ns/a@1", "ns/b@2"})
					eq(t, "cache after the relist failed", contents(inf), []string{"ns/a@1", "ns/b@2"})
					eq(t, "events up to the failure", sorted(rec.take()), []string{"add ns/a@1 initial", "add ns/b@2 initial"})
					time.Sleep(time.Minute) // past the backoff
					synctest.Wait()
					eq(t, "calls", lw.callLog(), []string{"list rv=", "watch rv=10", "list rv=10 match=NotOlderThan", "list rv= continue=c1", "list rv=10 match=NotOlderThan", "watch rv=30"})
					eq(t, "the complete relist, and nothing of the failed one", sorted(rec.take()), []string{"add ns/c@21", "delete ns/b@2 final-state-unknown", "update ns/a@1->20"})
					eq(t, "cache", contents(inf), []string{"ns/a@20", "ns/c@21"})
				})
			})

			t.Run("an expired continue token relists from the latest version and applies only the complete list", func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					lw := (&fakeLW{}).onList(
						listOf("10", cm("ns", "a", "1"), cm("ns", "b", "2")),
						page("20", "c1", cm("ns", "x", "15")),
						listErr(gone()),
						listOf("40", cm("ns", "b", "2"), cm("ns", "d", "35")),
					).onWatch(watchWith(true, errEvent(gone())))
					inf := New(lw, Options[*corev1.ConfigMap]{Decoded: rep.decoded, Reflector: noStream()})
					rec := &recorder{}
					inf.AddEventHandler(rec, HandlerOptions{})
					stop := start(t, inf)
					defer stop()
					synctest.Wait()
					eq(t, "calls", lw.callLog(), []string{"list rv=", "watch rv=10", "list rv=10 match=NotOlderThan", "list rv= continue=c1", "list rv=", "watch rv=40"})
					got := rec.take()
					eq(t, "relist", sorted(got[2:]), []string{"add ns/d@35", "delete ns/a@1 final-state-unknown", "update ns/b@2->2"})
					eq(t, "cache", contents(inf), []string{"ns/b@2", "ns/d@35"})
					if rv := inf.LastSyncResourceVersion(); rv != "40" {
						t.Fatalf("LastSyncResourceVersion = %q, want 40", rv)
					}
				})
			})

			t.Run("initial events that modify and delete what they added deliver the final state only", func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					w := watch.NewFakeWithChanSize(10, false)
					w.Add(cm("ns", "a", "1"))
					w.Add(cm("ns", "b", "2"))
					w.Add(cm("ns", "e", "3"))
					w.Modify(cm("ns", "a", "4", "v", "new"))
					w.Delete(cm("ns", "b", "5"))
					w.Add(cm("ns", "c", "6"))
					w.Delete(cm("ns", "gone", "7"))
					end := bookmark("8", true)
					w.Action(end.Type, end.Object)
					lw := (&fakeLW{}).onWatch(watchCh(w))
					inf := New(lw, Options[*corev1.ConfigMap]{Decoded: rep.decoded})
					rec := &recorder{}
					inf.AddEventHandler(rec, HandlerOptions{})
					stop := start(t, inf)
					defer stop()
					if err := inf.WaitForSync(t.Context()); err != nil {
						t.Fatal(err)
					}
					synctest.Wait()
					eq(t, "events", sorted(rec.take()), []string{"add ns/a@4 initial", "add ns/c@6 initial", "add ns/e@3 initial"})
					eq(t, "cache", contents(inf), []string{"ns/a@4", "ns/c@6", "ns/e@3"})
					if a, _ := inf.Lister().GetKey(Key{"ns", "a"}); a.Labels["v"] != "new" {
						t.Fatalf("a holds %v, want its modified state", a.Labels)
					}
				})
			})

			t.Run("a streaming list that ends before its end bookmark stores nothing of it", func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					lw := (&fakeLW{}).onWatch(watchWith(true, ev(watch.Added, cm("ns", "x", "1")))).
						onList(listOf("7", cm("ns", "a", "2")))
					inf := New(lw, Options[*corev1.ConfigMap]{Decoded: rep.decoded})
					rec := &recorder{}
					inf.AddEventHandler(rec, HandlerOptions{})
					stop := start(t, inf)
					defer stop()
					if err := inf.WaitForSync(t.Context()); err != nil {
						t.Fatal(err)
					}
					synctest.Wait()
					eq(t, "events", rec.take(), []string{"add ns/a@2 initial"})
					eq(t, "cache", contents(inf), []string{"ns/a@2"})
				})
			})
		})
	}
}

func TestReplacement(t *testing.T) {
	for _, rep := range representations {
		t.Run(rep.name, func(t *testing.T) {
			t.Run("readers see the old content until commit, and an abort keeps it", func(t *testing.T) {
				s := newStore[*corev1.ConfigMap](nil, nil, packerIf[*corev1.ConfigMap](!rep.decoded))
				s.replace([]*corev1.ConfigMap{cm("a", "x", "1")}, true)
				r := s.beginReplace()
				r.put(cm("a", "x", "2"))
				r.put(cm("a", "y", "1"))
				if s.Len() != 1 {
					t.Fatalf("store holds %d objects while a replacement is open", s.Len())
				}
				if o, _ := s.Get(Key{"a", "x"}); o.ResourceVersion != "1" {
					t.Fatalf("reader sees %s before commit", o.ResourceVersion)
				}
				r.abort()
				if o, _ := s.Get(Key{"a", "x"}); s.Len() != 1 || o.ResourceVersion != "1" {
					t.Fatalf("abort changed the store: %d objects, x@%s", s.Len(), o.ResourceVersion)
				}
			})

			t.Run("an index added while a replacement is open indexes its objects", func(t *testing.T) {
				s := newStore[*corev1.ConfigMap](nil, nil, packerIf[*corev1.ConfigMap](!rep.decoded))
				s.replace([]*corev1.ConfigMap{cm("a", "kept", "1", "app", "web")}, true)
				r := s.beginReplace()
				r.put(cm("a", "kept", "1", "app", "web"))
				r.put(cm("a", "new", "1", "app", "web"))
				s.addIndexers(map[string]IndexFunc[*corev1.ConfigMap]{"app": byApp})
				r.put(cm("a", "late", "1", "app", "web"))
				r.commit(false)
				keys, err := s.IndexKeys("app", "web")
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, k := range keys {
					got = append(got, k.String())
				}
				eq(t, "indexed", got, []string{"a/kept", "a/late", "a/new"})
			})

			t.Run("deltas come in the order objects were first put, deletions last", func(t *testing.T) {
				s := newStore[*corev1.ConfigMap](nil, nil, packerIf[*corev1.ConfigMap](!rep.decoded))
				s.replace([]*corev1.ConfigMap{cm("a", "old", "1"), cm("a", "m", "1")}, true)
				r := s.beginReplace()
				for _, n := range []string{"z", "m", "b", "y"} {
					r.put(cm("a", n, "2"))
				}
				r.put(cm("a", "z", "3"))
				r.remove(Key{"a", "b"})
				var got []string
				for _, d := range r.commit(false) {
					o := deltaObject(s, d)
					got = append(got, d.Type.String()+" "+KeyOf(o).String()+"@"+o.ResourceVersion)
				}
				eq(t, "deltas", got, []string{"Replaced a/z@3", "Replaced a/m@2", "Replaced a/y@2", "Deleted a/old@1"})
				if s.Len() != 3 {
					t.Fatalf("store holds %d objects, want 3", s.Len())
				}
			})
		})
	}
}
