package fake

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// fieldManager returns the field manager of res and subresource sub,
// building it on first use. Caller holds s.mu.
func (s *Server) fieldManager(res *resource, sub string) (*managedfields.FieldManager, error) {
	k := fmKey{res.gvr, sub}
	if fm := s.fms[k]; fm != nil {
		return fm, nil
	}
	tc := s.typeConverter(res)
	var reset map[fieldpath.APIVersion]fieldpath.Filter
	if res.status {
		path := "status"
		if sub == "status" {
			path = "spec"
		}
		reset = map[fieldpath.APIVersion]fieldpath.Filter{
			fieldpath.APIVersion(res.gvk.GroupVersion().String()): fieldpath.NewExcludeSetFilter(fieldpath.NewSet(fieldpath.MakePathOrDie(path))),
		}
	}
	fm, err := managedfields.NewDefaultCRDFieldManager(tc, sameVersion{}, noDefaults{}, unstructuredCreater{}, res.gvk, res.gvk.GroupVersion(), sub, reset)
	if err != nil {
		return nil, err
	}
	s.fms[k] = fm
	return fm, nil
}

// sameVersion converts unstructured objects between identical versions:
// the fake serves each version of a resource from its own storage, so the
// field manager's hub is the object's own version.
type sameVersion struct{}

func (sameVersion) Convert(in, out, _ any) error {
	ui, ok1 := in.(*unstructured.Unstructured)
	uo, ok2 := out.(*unstructured.Unstructured)
	if !ok1 || !ok2 {
		return fmt.Errorf("fake: cannot convert %T to %T", in, out)
	}
	uo.Object = runtime.DeepCopyJSON(ui.Object)
	return nil
}

func (sameVersion) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	gvk := in.GetObjectKind().GroupVersionKind()
	target, ok := gv.KindForGroupVersionKinds([]schema.GroupVersionKind{gvk})
	if !ok || target.GroupVersion() != gvk.GroupVersion() {
		return nil, fmt.Errorf("fake: no conversion from %v", gvk)
	}
	return in, nil
}

func (sameVersion) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

type noDefaults struct{}

func (noDefaults) Default(runtime.Object) {}

type unstructuredCreater struct{}

func (unstructuredCreater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// emptyObject is the object a create's managedFields are computed against,
// as kube-apiserver computes them: a built-in kind's zero value in its
// unstructured form (so the structs its Go type always has, such as a
// Deployment's spec and strategy, count as present before the write and
// are not listed as added), an empty object for a custom resource.
func emptyObject(res *resource) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	if res.builtin {
		if t := newTyped(res.gvk); t != nil {
			if m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(t); err == nil {
				u.Object = m
			}
		}
	}
	u.SetGroupVersionKind(res.gvk)
	return u
}
