package client

import (
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/informer"
)

// Registry maps the Go types of custom resources to their resources. The
// zero value is empty and ready to use; it is safe for concurrent use.
// Register types before building the clients that use them.
type Registry struct {
	mu sync.RWMutex
	m  map[reflect.Type]Mapping
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry { return &Registry{} }

// Register maps Go type T to resource gvr. The kind is T's type name (the
// convention for CRD Go types); use RegisterMapping when it differs.
// Registering a type again replaces the earlier mapping.
//
//	client.Register[*v1.Widget](reg, schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, true)
func Register[T informer.Object](r *Registry, gvr schema.GroupVersionResource, namespaced bool) {
	t := reflect.TypeFor[T]()
	name := t.Name()
	if t.Kind() == reflect.Pointer {
		name = t.Elem().Name()
	}
	RegisterMapping[T](r, Mapping{Resource: gvr, Kind: gvr.GroupVersion().WithKind(name), Namespaced: namespaced})
}

// RegisterMapping maps Go type T to m.
func RegisterMapping[T informer.Object](r *Registry, m Mapping) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[reflect.Type]Mapping{}
	}
	r.m[reflect.TypeFor[T]()] = m
}

func (r *Registry) lookup(t reflect.Type) (Mapping, bool) {
	if r == nil {
		return Mapping{}, false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	m, ok := r.m[t]
	return m, ok
}

// builtinResource is one row of the generated table.
type builtinResource struct {
	resource   string
	namespaced bool
}

// Builtin returns the mapping of a built-in kind of k8s.io/api, from the
// table generated out of its registration markers.
func Builtin(gvk schema.GroupVersionKind) (Mapping, bool) {
	b, ok := builtinResources[gvk]
	if !ok {
		return Mapping{}, false
	}
	return Mapping{Resource: gvk.GroupVersion().WithResource(b.resource), Kind: gvk, Namespaced: b.namespaced}, true
}

// BuiltinKinds calls yield for every built-in kind in the table, in no
// particular order, until yield returns false.
func BuiltinKinds(yield func(Mapping) bool) {
	for gvk := range builtinResources {
		m, _ := Builtin(gvk)
		if !yield(m) {
			return
		}
	}
}

// listKind returns the kind of the list of kind.
func listKind(gvk schema.GroupVersionKind) schema.GroupVersionKind {
	if strings.HasSuffix(gvk.Kind, "List") {
		return gvk
	}
	return gvk.GroupVersion().WithKind(gvk.Kind + "List")
}

// kindFor returns the mapping registered for resource gvr, if any.
func (r *Registry) kindFor(gvr schema.GroupVersionResource) (Mapping, bool) {
	if r == nil {
		return Mapping{}, false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, m := range r.m {
		if m.Resource == gvr {
			return m, true
		}
	}
	return Mapping{}, false
}

// builtinByResource returns the built-in kind served as resource gvr.
func builtinByResource(gvr schema.GroupVersionResource) (Mapping, bool) {
	for m := range BuiltinKinds {
		if m.Resource == gvr {
			return m, true
		}
	}
	return Mapping{}, false
}
