package informer

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// staticLW lists items once and then watches forever without events.
func staticLW[T Object](items ...T) ListerWatcher[T] {
	return Funcs[T]{
		ListFunc: func(context.Context, metav1.ListOptions) (ListResult[T], error) {
			return ListResult[T]{Items: items, ResourceVersion: "1"}, nil
		},
		WatchFunc: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return watch.NewFake(), nil },
	}
}

var widgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// fakeBackend serves ConfigMaps (typed), widgets (unstructured and
// metadata), and reports every other target as not found.
type fakeBackend struct {
	mu      sync.Mutex
	targets []Target
}

func (s *fakeBackend) ListerWatcher(_ context.Context, t Target) (ListerWatcher[Object], error) {
	s.mu.Lock()
	s.targets = append(s.targets, t)
	s.mu.Unlock()
	switch {
	case t.Form == Typed && t.Type == reflect.TypeFor[*corev1.ConfigMap]():
		return Erase(staticLW(cm(t.Namespace, "a", "1"), cm(t.Namespace, "b", "1"))), nil
	case t.Form == Unstructured && t.Resource == widgets:
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("example.com/v1")
		u.SetKind("Widget")
		u.SetNamespace("ns")
		u.SetName("w1")
		return Erase(staticLW(u)), nil
	case t.Form == Metadata && t.Resource == widgets:
		return Erase(staticLW(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w1"}})), nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: t.Resource.Resource}, "")
}

func (s *fakeBackend) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.targets)
}

func TestFactory(t *testing.T) {
	t.Run("one informer per type and options, shared between callers", func(t *testing.T) {
		f := NewFactory(&fakeBackend{}, FactoryOptions{})
		a := mustAcquire(Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "ns"}))
		b := mustAcquire(Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "ns"}))
		c := mustAcquire(Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "other"}))
		d := mustAcquire(Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "ns", LabelSelector: "app=web"}))
		e1 := mustAcquire(Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "ns", Transform: func(o Object) Object { return o }}))
		e2 := mustAcquire(Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "ns", Transform: func(o Object) Object { return o }}))
		n1 := mustAcquire(Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "ns", Transform: func(o Object) Object { return o }, TransformName: "trim"}))
		n2 := mustAcquire(Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "ns", Transform: func(o Object) Object { return o }, TransformName: "trim"}))
		if a != b || n1 != n2 {
			t.Fatal("equal options gave different informers")
		}
		if a == c || a == d || a == e1 || e1 == e2 || a == n1 {
			t.Fatal("different options shared an informer")
		}
	})

	t.Run("typed, dynamic and metadata informers sync through one factory", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			src := &fakeBackend{}
			f := NewFactory(src, FactoryOptions{Reflector: noStream()})
			pods := mustAcquire(Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "ns"}))
			dyn := mustAcquire(AcquireResource(f, widgets, SharedOptions{}))
			meta := mustAcquire(AcquireMetadata(f, widgets, SharedOptions{}))
			ctx, cancel := context.WithCancel(t.Context())
			f.Start(ctx)
			if err := f.WaitForSync(ctx); err != nil {
				t.Fatal(err)
			}
			if _, ok := pods.Lister().Namespace("ns").Get("a"); !ok {
				t.Error("typed informer missing ns/a")
			}
			if u, ok := dyn.Lister().Namespace("ns").Get("w1"); !ok || u.GetKind() != "Widget" {
				t.Errorf("dynamic informer: %v %v", u, ok)
			}
			if _, ok := meta.Lister().Namespace("ns").Get("w1"); !ok {
				t.Error("metadata informer missing ns/w1")
			}
			late := mustAcquire(Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "late"}))
			if err := late.WaitForSync(ctx); err != nil {
				t.Fatalf("informer created after Start did not start: %v", err)
			}
			cancel()
			if err := f.Wait(); err != nil {
				t.Fatal(err)
			}
		})
	})

	t.Run("WaitForSync names each informer that failed and why", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := NewFactory(&fakeBackend{}, FactoryOptions{Reflector: noStream()})
			mustAcquire(Acquire[*corev1.ConfigMap](f, SharedOptions{}))
			mustAcquire(Acquire[*corev1.Secret](f, SharedOptions{}))
			mustAcquire(AcquireResource(f, schema.GroupVersionResource{Group: "missing.io", Version: "v1", Resource: "gadgets"}, SharedOptions{}))
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			f.Start(ctx)
			err := f.WaitForSync(ctx)
			if err == nil || !apierrors.IsNotFound(err) {
				t.Fatalf("WaitForSync = %v, want NotFound causes", err)
			}
			var n int
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				var se *SyncError
				if !errors.As(e, &se) || !apierrors.IsNotFound(se.Cause) {
					t.Errorf("element %v", e)
				}
				n++
			}
			if n != 2 {
				t.Fatalf("%d failed informers in %v, want 2", n, err)
			}
			cancel()
			f.Wait()
		})
	})

	t.Run("the last Release stops the informer and frees its cache", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			src := &fakeBackend{}
			f := NewFactory(src, FactoryOptions{Reflector: noStream()})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			f.Start(ctx)
			a := mustAcquire(Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "ns"}))
			b := mustAcquire(Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "ns"}))
			if err := a.WaitForSync(ctx); err != nil {
				t.Fatal(err)
			}
			a.Release()
			if b.Lister().Len() != 2 {
				t.Fatal("first Release freed a shared informer")
			}
			b.Release()
			b.Release() // extra releases are ignored
			if b.Lister().Len() != 0 {
				t.Fatal("last Release kept the cache")
			}
			if _, err := b.AddEventHandler(&recorder{}, HandlerOptions{}); !errors.Is(err, ErrStopped) {
				t.Fatalf("AddEventHandler on a released informer = %v", err)
			}
			c := mustAcquire(Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "ns"}))
			if c == b {
				t.Fatal("released informer handed out again")
			}
			if err := c.WaitForSync(ctx); err != nil {
				t.Fatal(err)
			}
			if src.calls() != 2 {
				t.Fatalf("backend called %d times", src.calls())
			}
		})
	})

	t.Run("a backend returning the wrong Go type is a sync error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			src := BackendFunc(func(context.Context, Target) (ListerWatcher[Object], error) {
				return Erase(staticLW(cm("ns", "a", "1"))), nil
			})
			f := NewFactory(src, FactoryOptions{Reflector: noStream()})
			inf := mustAcquire(Acquire[*corev1.Secret](f, SharedOptions{}))
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			f.Start(ctx)
			if err := inf.WaitForSync(ctx); !errors.Is(err, ErrUnexpectedType) {
				t.Fatalf("WaitForSync = %v, want ErrUnexpectedType", err)
			}
		})
	})
}
