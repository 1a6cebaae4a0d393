package informer

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/internal/codec"
)

// hintedLW is a fakeLW that also takes watch hints and records them.
type hintedLW struct {
	*fakeLW
	mu    sync.Mutex
	hints []codec.Hints
}

func (h *hintedLW) WatchHinted(ctx context.Context, opts metav1.ListOptions, hints codec.Hints) (watch.Interface, error) {
	h.mu.Lock()
	h.hints = append(h.hints, hints)
	h.mu.Unlock()
	return h.Watch(ctx, opts)
}

func TestWatchesCarryTheInformersHints(t *testing.T) {
	tests := []struct {
		name     string
		keepMF   bool
		wantDrop bool
	}{
		{"managedFields are dropped by default, so the watch may cut them", false, true},
		{"KeepManagedFields keeps them in the watch too", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := watch.NewFake()
				lw := &hintedLW{fakeLW: (&fakeLW{}).onList(listOf("10", cm("ns", "a", "1"))).onWatch(watchCh(w))}
				inf := New[*corev1.ConfigMap](lw, Options[*corev1.ConfigMap]{Decoded: true, Reflector: noStream(), KeepManagedFields: tt.keepMF})
				stop := start(t, inf)
				defer stop()
				inf.WaitForSync(t.Context())
				synctest.Wait()
				lw.mu.Lock()
				defer lw.mu.Unlock()
				if len(lw.hints) != 1 {
					t.Fatalf("%d hinted watches, want 1", len(lw.hints))
				}
				h := lw.hints[0]
				if h.DropManagedFields != tt.wantDrop {
					t.Errorf("DropManagedFields = %v, want %v", h.DropManagedFields, tt.wantDrop)
				}
				cached, _ := inf.Lister().GetKey(Key{"ns", "a"})
				if got, ok := h.Known("ns", "a", "1"); !ok || got != runtime.Object(cached) {
					t.Errorf("Known(ns/a@1) = %v, %v; want the cached object", got, ok)
				}
				if _, ok := h.Known("ns", "a", "2"); ok {
					t.Error("Known answered for another resourceVersion")
				}
				if _, ok := h.Known("ns", "b", "1"); ok {
					t.Error("Known answered for an object not held")
				}
			})
		})
	}
}

func TestWrappersFollowHintsExactlyWhenTheirListerWatcherDoes(t *testing.T) {
	plain := &fakeLW{}
	hinted := &hintedLW{fakeLW: &fakeLW{}}
	isHinted := func(lw any) bool { _, ok := lw.(hintedWatcher); return ok }
	tests := []struct {
		name string
		lw   any
		want bool
	}{
		{"an erased plain ListerWatcher", Erase[*corev1.ConfigMap](plain), false},
		{"an erased hinted ListerWatcher", Erase[*corev1.ConfigMap](hinted), true},
		{"a plain ListerWatcher narrowed", narrow[*corev1.ConfigMap](Funcs[Object]{}), false},
		{"a hinted ListerWatcher erased and narrowed to another type", narrow[*corev1.Secret](Erase[*corev1.ConfigMap](hinted)), true},
		{"a plain ListerWatcher erased and narrowed to another type", narrow[*corev1.Secret](Erase[*corev1.ConfigMap](plain)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isHinted(tt.lw); got != tt.want {
				t.Fatalf("follows hints = %v, want %v", got, tt.want)
			}
		})
	}
	if got := narrow[*corev1.ConfigMap](Erase[*corev1.ConfigMap](hinted)); got != ListerWatcher[*corev1.ConfigMap](hinted) {
		t.Fatalf("narrowing an Erase of the same type gave %T, want the ListerWatcher itself", got)
	}
}
