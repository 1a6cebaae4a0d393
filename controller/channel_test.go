package controller

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/informer"
)

// alarm is an external event.
type alarm struct{ target string }

func TestChannelSource(t *testing.T) {
	t.Run("each value enqueues the Requests it maps to", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ch := make(chan alarm)
			rec := &recorder{}
			h := startController(t, newMemBackend(), Options{Reconciler: rec, Sources: []Source{
				Channel[alarm](ch, func(_ context.Context, a alarm) []Request {
					return []Request{{Key: informer.Key{Namespace: "ns", Name: a.target}}}
				}),
			}})
			ch <- alarm{"a"}
			ch <- alarm{"b"}
			synctest.Wait()
			if got := rec.times(reqA); len(got) != 1 || rec.total() != 2 {
				t.Fatalf("%d reconciles (%d of a), want a and b once", rec.total(), len(got))
			}
			h.stop(t)
		})
	})
	t.Run("Requests need no map function", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ch := make(chan Request, 1)
			rec := &recorder{}
			h := startController(t, newMemBackend(), Options{Reconciler: rec, Sources: []Source{Channel[Request](ch, nil)}})
			ch <- reqA
			synctest.Wait()
			if rec.total() != 1 || len(rec.times(reqA)) != 1 {
				t.Fatalf("%d reconciles, want a once", rec.total())
			}
			h.stop(t)
		})
	})
	t.Run("a closed channel ends the source, not the controller", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ch := make(chan Request)
			src := newMemBackend()
			rec := &recorder{}
			h := startController(t, src, Options{Reconciler: rec, Sources: []Source{
				For[*corev1.ConfigMap]{}, Channel[Request](ch, nil),
			}})
			close(ch)
			synctest.Wait()
			src.write(cm("a"))
			synctest.Wait()
			if rec.total() != 1 || !h.ctl.Started() {
				t.Fatalf("%d reconciles after the channel closed, started %v", rec.total(), h.ctl.Started())
			}
			h.stop(t)
		})
	})
	t.Run("the controller stopping ends the source's goroutine", func(t *testing.T) {
		// synctest.Test fails if a goroutine of the bubble is left blocked.
		synctest.Test(t, func(t *testing.T) {
			ch := make(chan Request) // never closed
			h := startController(t, newMemBackend(), Options{Reconciler: &recorder{}, Sources: []Source{Channel[Request](ch, nil)}})
			synctest.Wait()
			h.stop(t)
			select {
			case ch <- reqA:
				t.Fatal("a stopped source still reads its channel")
			default:
			}
		})
	})
	t.Run("it has no informer: synced at once, absent from SyncStates", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ch := make(chan Request)
			h := startController(t, newMemBackend(), Options{Reconciler: &recorder{}, Sources: []Source{
				Channel[Request](ch, nil), For[*corev1.ConfigMap]{},
			}})
			synctest.Wait()
			var names []string
			for name := range h.ctl.SyncStates() {
				names = append(names, name)
			}
			if len(names) != 1 || !h.ctl.HasSynced() {
				t.Fatalf("SyncStates %v, HasSynced %v; want the ConfigMap informer alone", names, h.ctl.HasSynced())
			}
			h.stop(t)
		})
	})
}

func TestChannelSourceRejectsBadArguments(t *testing.T) {
	f := informer.NewFactory(newMemBackend(), informer.FactoryOptions{})
	r := &recorder{}
	tests := []struct {
		name string
		src  Source
	}{
		{"a nil channel", Channel[Request](nil, nil)},
		{"no map function for values that are not Requests", Channel[alarm](make(chan alarm), nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(f, Options{Reconciler: r, Sources: []Source{tt.src}}); !errors.Is(err, ErrInvalidOptions) {
				t.Fatalf("New = %v, want ErrInvalidOptions", err)
			}
		})
	}
	t.Run("a source given to two controllers", func(t *testing.T) {
		src := Channel[Request](make(chan Request), nil)
		if _, err := New(f, Options{Reconciler: r, Sources: []Source{src}}); err != nil {
			t.Fatal(err)
		}
		if _, err := New(f, Options{Name: "second", Reconciler: r, Sources: []Source{src}}); !errors.Is(err, ErrSourceReused) {
			t.Fatalf("New = %v, want ErrSourceReused", err)
		}
	})
}

func TestPriorityQueueReconcilesALiveChangeBeforeTheInitialBacklog(t *testing.T) {
	tests := []struct {
		name     string
		priority bool
		wantPos  int // position of the new object among the reconciles
	}{
		{"with PriorityQueue, next", true, 1},
		{"without, after the backlog", false, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var objs []informer.Object
				for i := range 20 {
					objs = append(objs, cm(string(rune('a'+i))))
				}
				src := newMemBackend(objs...)
				release := make(chan struct{})
				rec := &recorder{fn: func(ctx context.Context, _ Request, _ int) (Result, error) {
					<-release // the first reconcile holds the only worker
					return Result{}, nil
				}}
				h := startController(t, src, Options{Reconciler: rec, PriorityQueue: tt.priority,
					Sources: []Source{For[*corev1.ConfigMap]{}}})
				synctest.Wait() // the backlog waits behind the first reconcile
				src.write(cm("new"))
				synctest.Wait()
				close(release)
				synctest.Wait()
				rec.mu.Lock()
				pos := slices.IndexFunc(rec.calls, func(c call) bool { return c.req.Name == "new" })
				n := len(rec.calls)
				rec.mu.Unlock()
				if pos != tt.wantPos || n != 21 {
					t.Fatalf("the live change was reconciled at position %d of %d, want %d of 21", pos, n, tt.wantPos)
				}
				h.stop(t)
			})
		})
	}
}

func TestSourcesOfOneTypeShareTheDeclaredInformer(t *testing.T) {
	f := informer.NewFactory(newMemBackend(), informer.FactoryOptions{OneInformerPerType: true})
	if err := f.Declare(informer.Declare[*corev1.ConfigMap](informer.SharedOptions{Namespace: "ns"})); err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	a, err := New(f, Options{Name: "a", Reconciler: r, Sources: []Source{For[*corev1.ConfigMap]{}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(f, Options{Name: "b", Reconciler: r, Sources: []Source{Owns[*corev1.ConfigMap]{OwnerKind: schema.GroupKind{Kind: "Foo"}}}})
	if err != nil {
		t.Fatal(err)
	}
	ia := a.sources[0].(*kindSource[*corev1.ConfigMap]).informer()
	ib := b.sources[0].(*kindSource[*corev1.ConfigMap]).informer()
	if ia == nil || ia != ib || !strings.Contains(ia.Name(), "ns") {
		t.Fatalf("informers %v and %v, want the one declared in namespace ns", ia, ib)
	}
	if _, err := informer.Acquire[*corev1.ConfigMap](f, informer.SharedOptions{Namespace: "other"}); !errors.Is(err, informer.ErrOptionsConflict) {
		t.Fatalf("another namespace = %v, want a conflict", err)
	}
}
