package fake

import (
	"encoding/json"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// key names an object within one resource.
type key struct{ namespace, name string }

func (k key) String() string {
	if k.namespace == "" {
		return k.name
	}
	return k.namespace + "/" + k.name
}

func (k key) less(o key) bool {
	if k.namespace != o.namespace {
		return k.namespace < o.namespace
	}
	return k.name < o.name
}

// object is one stored version of an object. Its content is never mutated
// after it is stored; writers store a new object. The encoded forms are
// computed once, on first use.
type object struct {
	res *resource
	key key
	rv  uint64
	u   map[string]any
	// convErr is set on the copy of a custom resource in a version its
	// definition's conversion failed to produce (crdconvert.go): reads
	// of it fail with this error, as on kube-apiserver.
	convErr error

	jsonOnce sync.Once
	json     []byte
	jsonErr  error

	typedOnce sync.Once
	typed     runtime.Object
	typedErr  error
}

func newObject(res *resource, u map[string]any, rv uint64) *object {
	uu := unstructured.Unstructured{Object: u}
	return &object{res: res, key: key{uu.GetNamespace(), uu.GetName()}, rv: rv, u: u}
}

// meta returns a read-only accessor view. Callers must not call setters.
func (o *object) meta() *unstructured.Unstructured { return &unstructured.Unstructured{Object: o.u} }

// copy returns a deep copy of the content that the caller may mutate.
func (o *object) copy() map[string]any { return runtime.DeepCopyJSON(o.u) }

func (o *object) encodeJSON() ([]byte, error) {
	o.jsonOnce.Do(func() { o.json, o.jsonErr = json.Marshal(o.u) })
	return o.json, o.jsonErr
}

// typedObject returns the object as its Go type, for protobuf. Only for
// built-in resources; shared, read-only.
func (o *object) typedObject() (runtime.Object, error) {
	o.typedOnce.Do(func() {
		t := newTyped(o.res.gvk)
		if t == nil {
			o.typedErr = errNotBuiltin
			return
		}
		o.typedErr = runtime.DefaultUnstructuredConverter.FromUnstructured(o.u, t)
		t.GetObjectKind().SetGroupVersionKind(o.res.gvk)
		o.typed = t
	})
	return o.typed, o.typedErr
}
