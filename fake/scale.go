package fake

import (
	"fmt"
	"net/http"
	"strconv"

	admissionv1 "k8s.io/api/admission/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

var schemaGR = schema.GroupResource{}

// scaleOf returns the autoscaling/v1 Scale view of o.
func scaleOf(o *object) (*autoscalingv1.Scale, error) {
	m := o.meta()
	spec, _, _ := unstructured.NestedInt64(o.u, "spec", "replicas")
	stat, _, _ := unstructured.NestedInt64(o.u, "status", "replicas")
	sc := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: m.GetName(), Namespace: m.GetNamespace(), UID: m.GetUID(),
			ResourceVersion: m.GetResourceVersion(), CreationTimestamp: m.GetCreationTimestamp(),
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: int32(spec)},
		Status: autoscalingv1.ScaleStatus{Replicas: int32(stat)},
	}
	switch {
	case !o.res.builtin:
		sc.Status.Selector, _, _ = unstructured.NestedString(o.u, "status", "selector")
	case o.res.gvk.Group == "":
		sel, _, _ := unstructured.NestedStringMap(o.u, "spec", "selector")
		if len(sel) > 0 {
			sc.Status.Selector = labels.SelectorFromSet(sel).String()
		}
	default:
		raw, ok, _ := unstructured.NestedMap(o.u, "spec", "selector")
		if ok {
			var ls metav1.LabelSelector
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &ls); err == nil {
				if sel, err := metav1.LabelSelectorAsSelector(&ls); err == nil {
					sc.Status.Selector = sel.String()
				}
			}
		}
	}
	return sc, nil
}

// setScale writes a Scale (JSON) to its parent. Caller holds s.mu.
func (s *Server) setScale(req *request, old *object, scaleJSON []byte, wo writeOpts) (*object, error) {
	var sc autoscalingv1.Scale
	u, err := decodeJSONMap(scaleJSON)
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, &sc); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if sc.Name != "" && sc.Name != req.name {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", sc.Name, req.name))
	}
	if req.admits() {
		// The mutating webhooks see the Scale as written, with the
		// parent's Scale as the old object; the validating ones see the
		// Scale of the parent as updated (in update).
		if u, err = s.admitScale(req, old, u, wo.dryRun); err != nil {
			return nil, err
		}
		sc = autoscalingv1.Scale{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, &sc); err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("the mutating admission webhooks left a Scale that does not decode: %w", err))
		}
		if sc.Name != "" && sc.Name != req.name {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", sc.Name, req.name))
		}
	}
	if sc.ResourceVersion != "" && sc.ResourceVersion != strconv.FormatUint(old.rv, 10) {
		return nil, conflict(req.res, req.name)
	}
	nu := old.copy()
	if err := unstructured.SetNestedField(nu, int64(sc.Spec.Replicas), "spec", "replicas"); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return s.update(req, old, nu, wo, false)
}

// scaleMap is the Scale view of the content u of an object of res, as
// admission webhooks are sent it.
func scaleMap(res *resource, u map[string]any, rv uint64) (map[string]any, error) {
	sc, err := scaleOf(newObject(res, u, rv))
	if err != nil {
		return nil, err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(sc)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return m, nil
}

// admitScale sends a write u of the scale subresource of old to the
// mutating webhooks whose rules name <resource>/scale, as an UPDATE of an
// autoscaling/v1 Scale with old's Scale as the old object, and returns the
// Scale as they left it. Caller holds s.mu; it is released while webhooks
// are called.
func (s *Server) admitScale(req *request, old *object, u map[string]any, dryRun bool) (map[string]any, error) {
	uu := &unstructured.Unstructured{Object: u}
	if uu.GetAPIVersion() == "" && uu.GetKind() == "" {
		uu.SetGroupVersionKind(scaleKind)
	}
	prev, err := scaleMap(old.res, old.u, old.rv)
	if err != nil {
		return nil, err
	}
	a := newAdmission(req, admissionv1.Update, req.name, dryRun)
	a.kind = &scaleKind
	a.obj, a.old = u, prev
	mutated, err := s.mutate(a)
	if err != nil {
		return nil, err
	}
	if s.st.get(req.res, old.key) != old {
		return nil, conflict(req.res, req.name)
	}
	return mutated, nil
}

func (s *Server) updateScale(w http.ResponseWriter, req *request, body []byte, wo writeOpts) error {
	su, err := decodeBody(&resource{builtin: true}, contentType(req.r), body)
	if err != nil {
		return err
	}
	js, err := utiljson.Marshal(su)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.st.get(req.res, key{req.namespace, req.name})
	if old == nil {
		return apierrors.NewNotFound(req.res.groupResource(), req.name)
	}
	o, err := s.setScale(req, old, js, wo)
	if err != nil {
		return err
	}
	sc, err := scaleOf(o)
	if err != nil {
		return err
	}
	writeTyped(w, req.mt, http.StatusOK, sc)
	return nil
}
