package informertest

import (
	"context"
	"reflect"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/informer"
)

// Backend is an informer.Backend serving Trackers, for Factory tests.
// Targets without a tracker get 404 NotFound, like a resource the server
// does not serve. The zero value is ready to use.
type Backend struct {
	mu   sync.Mutex
	lws  map[backendKey]func(ns string) informer.ListerWatcher[informer.Object]
	seen []informer.Target
}

type backendKey struct {
	typ  reflect.Type
	form informer.Form
	gvr  schema.GroupVersionResource
}

// Serve makes src answer targets of Go type T with tr: typed targets by
// type, and, when gvr is given, unstructured or metadata targets of that
// resource (T must then be *unstructured.Unstructured or
// *metav1.PartialObjectMetadata).
func Serve[T informer.Object](src *Backend, tr *Tracker[T], form informer.Form, gvr schema.GroupVersionResource) {
	src.mu.Lock()
	defer src.mu.Unlock()
	if src.lws == nil {
		src.lws = map[backendKey]func(string) informer.ListerWatcher[informer.Object]{}
	}
	k := backendKey{typ: reflect.TypeFor[T](), form: form}
	if form != informer.Typed {
		k.gvr = gvr
	}
	src.lws[k] = func(ns string) informer.ListerWatcher[informer.Object] {
		if ns == "" {
			return informer.Erase[T](tr)
		}
		return informer.Erase(tr.Namespace(ns))
	}
}

// ListerWatcher implements informer.Backend.
func (src *Backend) ListerWatcher(_ context.Context, t informer.Target) (informer.ListerWatcher[informer.Object], error) {
	src.mu.Lock()
	defer src.mu.Unlock()
	src.seen = append(src.seen, t)
	k := backendKey{typ: t.Type, form: t.Form}
	if t.Form != informer.Typed {
		k.gvr = t.Resource
	}
	if f, ok := src.lws[k]; ok {
		return f(t.Namespace), nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: t.Resource.Group, Resource: t.Resource.Resource}, "")
}

// Targets returns every target asked for so far.
func (src *Backend) Targets() []informer.Target {
	src.mu.Lock()
	defer src.mu.Unlock()
	return append([]informer.Target(nil), src.seen...)
}
