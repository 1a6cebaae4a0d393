package informer

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// RefusedError describes an object the reflector would not store: one
// without a name, one from outside the watched namespace, or an
// unstructured object of another group/version or kind than the watched
// resource's. Such objects come only from a broken or hostile server (or
// something between); the reflector leaves them out and counts them (see
// [reflector.Refused] and [Informer.Refused]). It wraps [ErrRefused].
type RefusedError struct {
	// Key is the refused object's namespace and name, as received.
	Key Key
	// Kind is its apiVersion and kind when it carried them, else "".
	Kind string
	// Reason says which check it failed.
	Reason string
}

func (e *RefusedError) Error() string {
	what := e.Key.String()
	if e.Key.Name == "" {
		what = fmt.Sprintf("%q", e.Key.String())
	}
	if e.Kind != "" {
		what = e.Kind + " " + what
	}
	return fmt.Sprintf("object %s refused: %s", what, e.Reason)
}

// Unwrap returns [ErrRefused].
func (e *RefusedError) Unwrap() error { return ErrRefused }

// admission holds what the reflector checks every received object against
// and what it refused. Only the reflector's goroutine calls check; the
// counters are read concurrently.
type admission struct {
	// namespace is ReflectorOptions.Namespace, scoped the ListerWatcher's
	// own (see Namespaced); "" checks nothing.
	namespace string
	scoped    string
	resource  schema.GroupVersionResource
	kind      string // required kind; "" learns it (see checkKind)
	typeName  string // the name of T's Go type (ConfigMap for *corev1.ConfigMap)

	// learned is the kind taken for the watched one when no object of the
	// expected kind came first (a CRD with an irregular plural, a Go type
	// named otherwise than its kind); regular is set once an object of the
	// expected kind arrived, after which only that kind passes.
	learned string
	regular bool

	mu      sync.Mutex
	refused int
	last    error
}

func newAdmission(opts ReflectorOptions, scoped string, typ reflect.Type) *admission {
	a := &admission{namespace: opts.Namespace, scoped: scoped, resource: opts.Resource, kind: opts.Kind}
	if typ != nil && typ.Kind() == reflect.Pointer {
		a.typeName = typ.Elem().Name()
	}
	return a
}

// check returns a *RefusedError for an object that must not be stored.
func (a *admission) check(obj Object) *RefusedError {
	if obj.GetName() == "" {
		return a.refuse(obj, "", "it has no name")
	}
	for _, ns := range [...]string{a.namespace, a.scoped} {
		if ns != "" && obj.GetNamespace() != ns {
			return a.refuse(obj, "", fmt.Sprintf("namespace %q is not the watched namespace %q", obj.GetNamespace(), ns))
		}
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	_, unstructured := obj.(runtime.Unstructured)
	var reason string
	switch {
	case unstructured && !a.resource.Empty():
		reason = a.checkKind(gvk, true)
	case !unstructured && gvk.Kind != "" && a.typeName != "":
		// Typed objects carry a kind only in JSON watch events and list
		// items that state one; decoding did not check it.
		reason = a.checkKind(gvk, false)
	}
	if reason != "" {
		return a.refuse(obj, strings.TrimPrefix(gvk.GroupVersion().String()+"/"+gvk.Kind, "/"), reason)
	}
	return nil
}

// checkKind returns why gvk is not the watched kind, or "". An unstructured
// object's group/version must be the resource's. The kind must be the one
// required, if any; otherwise the expected kind (for unstructured objects a
// kind whose regular plural is the resource — Secret is not configmaps —,
// for typed ones the name of the Go type), or, as long as no object of the
// expected kind came, the first other kind seen.
func (a *admission) checkKind(gvk schema.GroupVersionKind, unstructured bool) string {
	if unstructured && gvk.GroupVersion() != a.resource.GroupVersion() {
		return fmt.Sprintf("apiVersion %q is not the watched resource's %q", gvk.GroupVersion().String(), a.resource.GroupVersion().String())
	}
	expected := gvk.Kind == a.typeName
	if unstructured {
		expected = guessResource(gvk) == a.resource.Resource
	}
	switch {
	case a.kind != "":
		if gvk.Kind != a.kind {
			return fmt.Sprintf("kind %q is not %q", gvk.Kind, a.kind)
		}
	case gvk.Kind == "":
		return "it has no kind"
	case expected:
		a.regular = true
	case a.regular:
		return fmt.Sprintf("kind %q is not the watched kind", gvk.Kind)
	case a.learned == "":
		a.learned = gvk.Kind
	case gvk.Kind != a.learned:
		return fmt.Sprintf("kind %q is not %q, the kind of the first object", gvk.Kind, a.learned)
	}
	return ""
}

func guessResource(gvk schema.GroupVersionKind) string {
	plural, _ := meta.UnsafeGuessKindToResource(gvk)
	return plural.Resource
}

func (a *admission) refuse(obj Object, kind, reason string) *RefusedError {
	err := &RefusedError{Key: KeyOf(obj), Kind: kind, Reason: reason}
	a.mu.Lock()
	a.refused++
	a.last = err
	a.mu.Unlock()
	return err
}

// counts returns how many objects were refused and the last refusal.
func (a *admission) counts() (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.refused, a.last
}
