package fake

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubego/kubego/scheme"
)

// Add stores obj as if created by POST, except that its namespace need
// not exist. obj is a typed built-in object or an *unstructured.Unstructured
// of a served kind; its kind comes from its TypeMeta or, for typed objects,
// from the scheme. The caller keeps ownership of obj (it is copied).
func (s *Server) Add(obj runtime.Object) error {
	var u map[string]any
	gvk := obj.GetObjectKind().GroupVersionKind()
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		u = runtime.DeepCopyJSON(o.Object)
	default:
		if gvk.Empty() {
			gvks, _, err := scheme.Default().ObjectKinds(obj)
			if err != nil || len(gvks) == 0 {
				return fmt.Errorf("%w: unknown kind %T", ErrInvalidObject, obj)
			}
			gvk = gvks[0]
		}
		var err error
		if u, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
			return fmt.Errorf("%w: %v", ErrInvalidObject, err)
		}
		u["apiVersion"], u["kind"] = gvk.GroupVersion().String(), gvk.Kind
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	res := s.reg.byGVK[gvk]
	if res == nil {
		return fmt.Errorf("%w: kind %v is not served", ErrInvalidObject, gvk)
	}
	uu := &unstructured.Unstructured{Object: u}
	req := &request{res: res, namespace: uu.GetNamespace()}
	if res.namespaced && req.namespace == "" {
		req.namespace = "default"
	}
	if err := s.ensureNamespace(req.namespace); err != nil {
		return err
	}
	if _, err := s.create(req, u, writeOpts{manager: "fake", seed: true}, false); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidObject, err)
	}
	return nil
}

// ensureNamespace creates namespace ns if it does not exist, so seeded
// objects need no explicit Namespace. Caller holds s.mu.
func (s *Server) ensureNamespace(ns string) error {
	if ns == "" || s.st.data[namespacesGVR][key{name: ns}] != nil {
		return nil
	}
	res := s.reg.byGVR[namespacesGVR]
	u := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}
	_, err := s.create(&request{res: res}, u, writeOpts{manager: "fake"}, false)
	return err
}
