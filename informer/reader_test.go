package informer

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// itemsBackend serves its ConfigMaps and reports every other type as not
// found; it counts the ListerWatchers asked for.
type itemsBackend struct {
	items []*corev1.ConfigMap
	mu    sync.Mutex
	asked int
}

func (b *itemsBackend) ListerWatcher(_ context.Context, t Target) (ListerWatcher[Object], error) {
	b.mu.Lock()
	b.asked++
	b.mu.Unlock()
	if t.Type != reflect.TypeFor[*corev1.ConfigMap]() {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, "")
	}
	return Erase(staticLW(b.items...)), nil
}

func (b *itemsBackend) calls() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.asked
}

func appOf(o Object) []string           { return []string{o.GetLabels()["app"]} }
func tierOf(o Object) []string          { return []string{o.GetLabels()["tier"]} }
func identityTransform(o Object) Object { return o }
func otherTransform(o Object) Object    { return o }

func TestOneInformerPerType(t *testing.T) {
	base := SharedOptions{Namespace: "a", Indexers: map[string]func(Object) []string{"app": appOf}}
	tests := []struct {
		name      string
		second    SharedOptions
		wantField string // "" means shared
	}{
		{"equal options share the informer", base, ""},
		{"a new index name joins the informer", SharedOptions{Namespace: "a", Indexers: map[string]func(Object) []string{"tier": tierOf}}, ""},
		{"the same index again is fine", SharedOptions{Namespace: "a", Indexers: map[string]func(Object) []string{"app": appOf}}, ""},
		{"another namespace is refused", SharedOptions{Namespace: "b"}, "Namespace"},
		{"all namespaces is refused", SharedOptions{}, "Namespace"},
		{"another label selector is refused", SharedOptions{Namespace: "a", LabelSelector: "app=web"}, "LabelSelector"},
		{"another field selector is refused", SharedOptions{Namespace: "a", FieldSelector: "metadata.name=x"}, "FieldSelector"},
		{"a transform is refused", SharedOptions{Namespace: "a", Transform: identityTransform}, "Transform"},
		{"a named transform is refused", SharedOptions{Namespace: "a", Transform: identityTransform, TransformName: "trim"}, "Transform"},
		{"keeping managedFields is refused", SharedOptions{Namespace: "a", KeepManagedFields: true}, "KeepManagedFields"},
		{"disabling sharing is refused", SharedOptions{Namespace: "a", DisableSharing: true}, "DisableSharing"},
		{"disabling compression is refused", SharedOptions{Namespace: "a", DisableCompression: true}, "DisableCompression"},
		{"an index of the same name with another function is refused", SharedOptions{Namespace: "a", Indexers: map[string]func(Object) []string{"app": tierOf}}, `Indexers["app"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFactory(&itemsBackend{}, FactoryOptions{Reflector: noStream(), OneInformerPerType: true})
			first, err := Acquire[*corev1.ConfigMap](f, base)
			if err != nil {
				t.Fatal(err)
			}
			second, err := Acquire[*corev1.ConfigMap](f, tt.second)
			if tt.wantField == "" {
				if err != nil || second != first {
					t.Fatalf("got %p, %v; want the first informer %p", second, err, first)
				}
				return
			}
			var ce *OptionsConflictError
			if !errors.As(err, &ce) || !errors.Is(err, ErrOptionsConflict) || second != nil {
				t.Fatalf("got %v, %v; want an *OptionsConflictError", second, err)
			}
			if ce.Field != tt.wantField || ce.First.Namespace != "a" || !reflect.DeepEqual(ce.Second.Namespace, tt.second.Namespace) {
				t.Errorf("conflict %+v, want field %s and both option sets", ce, tt.wantField)
			}
			if msg := err.Error(); !strings.Contains(msg, `namespace "a"`) || !strings.Contains(msg, "*v1.ConfigMap") || !strings.Contains(msg, tt.wantField) {
				t.Errorf("message %q does not name the type, the field and both option sets", msg)
			}
		})
	}
}

func TestOneInformerPerTypeTransforms(t *testing.T) {
	f := NewFactory(&itemsBackend{}, FactoryOptions{Reflector: noStream(), OneInformerPerType: true})
	a, err := Acquire[*corev1.ConfigMap](f, SharedOptions{Transform: identityTransform})
	if err != nil {
		t.Fatal(err)
	}
	// Unnamed transforms are told apart by their code.
	b, err := Acquire[*corev1.ConfigMap](f, SharedOptions{Transform: identityTransform})
	if err != nil || a != b {
		t.Fatalf("the same unnamed transform: %p, %v; want the first informer", b, err)
	}
	if _, err := Acquire[*corev1.ConfigMap](f, SharedOptions{Transform: otherTransform}); !errors.Is(err, ErrOptionsConflict) {
		t.Fatalf("another unnamed transform: %v, want a conflict", err)
	}
	// Forms are distinct identities: a metadata informer of a resource is
	// not the typed one.
	if _, err := AcquireMetadata(f, widgets, SharedOptions{Namespace: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := AcquireResource(f, widgets, SharedOptions{Namespace: "y"}); err != nil {
		t.Fatal(err)
	}
	if _, err := AcquireResource(f, widgets, SharedOptions{Namespace: "z"}); !errors.Is(err, ErrOptionsConflict) {
		t.Fatalf("second unstructured widgets informer: %v, want a conflict", err)
	}
}

func TestFactoryWithoutOneInformerPerTypeKeepsSeparateInformers(t *testing.T) {
	f := NewFactory(&itemsBackend{}, FactoryOptions{Reflector: noStream()})
	a, err := Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "a"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "b"})
	if err != nil || a == b {
		t.Fatalf("got %p, %v; want a second informer", b, err)
	}
}

func TestReader(t *testing.T) {
	src := &itemsBackend{items: []*corev1.ConfigMap{
		cm("a", "web", "1", "app", "web", "tier", "front"),
		cm("a", "db", "1", "app", "db", "tier", "back"),
		cm("b", "web", "1", "app", "web", "tier", "front"),
	}}
	f := NewFactory(src, FactoryOptions{Reflector: noStream(), OneInformerPerType: true})
	if err := f.Declare(Declare[*corev1.ConfigMap](SharedOptions{Indexers: map[string]func(Object) []string{"app": appOf}})); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader[*corev1.ConfigMap](f, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	f.Start(ctx)
	defer func() { cancel(); _ = f.Wait() }()

	t.Run("Get waits for the sync and finds the object", func(t *testing.T) {
		got, err := r.Get(t.Context(), Key{Namespace: "a", Name: "db"})
		if err != nil || got.Labels["app"] != "db" {
			t.Fatalf("Get: %v, %v", got, err)
		}
	})
	t.Run("Get of a missing object is NotFound, for apierrors too", func(t *testing.T) {
		_, err := r.Get(t.Context(), Key{Namespace: "a", Name: "nope"})
		var nf *notFoundError
		if !errors.As(err, &nf) || !errors.Is(err, ErrNotFound) || !apierrors.IsNotFound(err) || nf.Key.Name != "nope" {
			t.Fatalf("Get: %v, want a *NotFoundError", err)
		}
	})
	t.Run("List by namespace and labels", func(t *testing.T) {
		tests := []struct {
			opts ListOptions
			want int
		}{
			{ListOptions{}, 3},
			{ListOptions{Namespace: "a"}, 2},
			{ListOptions{Labels: labels.SelectorFromSet(labels.Set{"app": "web"})}, 2},
			{ListOptions{Namespace: "b", Labels: labels.SelectorFromSet(labels.Set{"app": "web"})}, 1},
			{ListOptions{Namespace: "c"}, 0},
		}
		for _, tt := range tests {
			got, err := r.List(t.Context(), tt.opts)
			if err != nil || len(got) != tt.want {
				t.Errorf("List(%+v): %d objects, %v; want %d", tt.opts, len(got), err, tt.want)
			}
		}
	})
	t.Run("ByIndex by a declared index, and one added by another user", func(t *testing.T) {
		// Another user of the type adds an index to the one informer.
		if _, err := Acquire[*corev1.ConfigMap](f, SharedOptions{Indexers: map[string]func(Object) []string{"tier": tierOf}}); err != nil {
			t.Fatal(err)
		}
		r2, err := NewReader[*corev1.ConfigMap](f, ReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.ByIndex(t.Context(), "tier", "front")
		if err != nil || len(got) != 2 {
			t.Fatalf("ByIndex(tier=front): %d, %v; want 2", len(got), err)
		}
		if got, err := r2.ByIndex(t.Context(), "app", "db"); err != nil || len(got) != 1 {
			t.Fatalf("ByIndex(app=db): %d, %v; want 1", len(got), err)
		}
		if _, err := r.ByIndex(t.Context(), "nope", "x"); !errors.Is(err, ErrUnknownIndex) {
			t.Fatalf("unknown index: %v", err)
		}
	})
	t.Run("a request with other options is refused", func(t *testing.T) {
		_, err := Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "a"})
		if !errors.Is(err, ErrOptionsConflict) {
			t.Fatalf("Acquire: %v, want a conflict", err)
		}
	})
	if src.calls() != 1 {
		t.Errorf("%d watches started, want one shared", src.calls())
	}
}

func TestReaderOfAResourceNotServed(t *testing.T) {
	// The resource is not served (a 404, like a CRD not installed): the
	// read returns early with the sync's cause, and is not mistaken for a
	// missing object.
	f := NewFactory(&itemsBackend{}, FactoryOptions{Reflector: noStream(), OneInformerPerType: true, FailFastAfter: 1})
	r, err := NewReader[*corev1.Secret](f, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	f.Start(ctx)
	defer func() { cancel(); _ = f.Wait() }()
	_, err = r.Get(t.Context(), Key{Namespace: "a", Name: "x"})
	var re *readError
	var se *SyncError
	if !errors.As(err, &re) || !errors.As(err, &se) || !se.Permanent || !apierrors.IsNotFound(se.Cause) {
		t.Fatalf("Get: %v, want a *ReadError holding a permanent *SyncError with the 404", err)
	}
	if apierrors.IsNotFound(err) || errors.Is(err, ErrNotFound) {
		t.Errorf("a resource not served reads as a missing object: %v", err)
	}
	if !errors.Is(err, ErrNotSynced) {
		t.Errorf("errors.Is(err, ErrNotSynced) is false for %v", err)
	}
}

func TestReaderBeforeTheFactoryStartsTimesOutWithTheCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := NewFactory(&itemsBackend{}, FactoryOptions{Reflector: noStream()})
		r, err := NewReader[*corev1.ConfigMap](f, ReaderOptions{SyncTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = r.List(t.Context(), ListOptions{})
		var se *SyncError
		if !errors.As(err, &se) || !errors.Is(se.Cause, ErrNotStarted) || !errors.Is(err, ErrNotSynced) {
			t.Fatalf("List: %v, want a *SyncError caused by ErrNotStarted", err)
		}
		if waited := time.Since(start); waited != time.Second {
			t.Errorf("waited %v, want the SyncTimeout", waited)
		}
	})
}

func TestLazyReader(t *testing.T) {
	t.Run("starts its informer on the first read", func(t *testing.T) {
		src := &itemsBackend{items: []*corev1.ConfigMap{cm("a", "web", "1")}}
		f := NewFactory(src, FactoryOptions{Reflector: noStream(), OneInformerPerType: true})
		ctx, cancel := context.WithCancel(t.Context())
		f.Start(ctx)
		defer func() { cancel(); _ = f.Wait() }()
		r, err := NewReader[*corev1.ConfigMap](f, ReaderOptions{Lazy: true})
		if err != nil {
			t.Fatal(err)
		}
		if src.calls() != 0 || r.HasSynced() {
			t.Fatalf("a lazy reader started a watch before any read (%d)", src.calls())
		}
		if _, err := r.Get(t.Context(), Key{Namespace: "a", Name: "web"}); err != nil {
			t.Fatal(err)
		}
		if src.calls() != 1 || !r.HasSynced() {
			t.Fatalf("%d watches after the first read, synced %v", src.calls(), r.HasSynced())
		}
	})
	t.Run("claims the declared options at setup", func(t *testing.T) {
		f := NewFactory(&itemsBackend{}, FactoryOptions{Reflector: noStream(), OneInformerPerType: true})
		if err := f.Declare(Declare[*corev1.ConfigMap](SharedOptions{Namespace: "a"})); err != nil {
			t.Fatal(err)
		}
		if _, err := NewReader[*corev1.ConfigMap](f, ReaderOptions{Lazy: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := Acquire[*corev1.ConfigMap](f, SharedOptions{Namespace: "b"}); !errors.Is(err, ErrOptionsConflict) {
			t.Fatalf("Acquire of another namespace: %v, want a conflict", err)
		}
		if _, err := NewReader[*corev1.ConfigMap](f, ReaderOptions{Lazy: true}); err != nil {
			t.Fatalf("a second lazy reader: %v", err)
		}
	})
	t.Run("of an undeclared type claims it without options", func(t *testing.T) {
		f := NewFactory(&itemsBackend{}, FactoryOptions{Reflector: noStream(), OneInformerPerType: true})
		if _, err := NewReader[*corev1.ConfigMap](f, ReaderOptions{Lazy: true}); err != nil {
			t.Fatal(err)
		}
		if err := f.Declare(Declare[*corev1.ConfigMap](SharedOptions{Namespace: "a"})); !errors.Is(err, ErrDeclared) || !errors.Is(err, ErrOptionsConflict) {
			t.Fatalf("a declaration after use: %v, want ErrDeclared and the conflict", err)
		}
	})
}

func TestReaderRelease(t *testing.T) {
	f := NewFactory(&itemsBackend{}, FactoryOptions{Reflector: noStream(), OneInformerPerType: true})
	r, err := NewReader[*corev1.ConfigMap](f, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Name() == "" {
		t.Fatal("a Reader in use has no name")
	}
	r.Release()
	r.Release() // idempotent
	if r.Name() != "" || r.HasSynced() {
		t.Fatalf("released: name %q, synced %v", r.Name(), r.HasSynced())
	}
	if _, err := r.Get(t.Context(), Key{Name: "x"}); !errors.Is(err, ErrStopped) {
		t.Fatalf("Get after Release = %v, want ErrStopped", err)
	}
}
