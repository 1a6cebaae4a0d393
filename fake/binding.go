package fake

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/scheme"
)

// Binding a pod to a node, as a scheduler does: a create of
// pods/{name}/binding, or of the older namespaced bindings resource
// (the pod named by the Binding's own name). Both set the pod's
// spec.nodeName once, add the PodScheduled condition, and answer with a
// Status of success; the write bypasses admission and field management,
// as on kube-apiserver.

var bindingsGVR = schema.GroupVersionResource{Version: "v1", Resource: "bindings"}

// bindingResource is the namespaced, create-only bindings resource.
func bindingResource() *resource {
	return &resource{gvr: bindingsGVR, gvk: bindingsGVR.GroupVersion().WithKind("Binding"), namespaced: true, builtin: true}
}

// isBinding reports whether sub of res is pods/binding.
func isBinding(res *resource, sub string) bool {
	return sub == "binding" && res.builtin && res.gvr.GroupResource() == schema.GroupResource{Resource: "pods"}
}

// isBindings reports whether res is the bindings resource.
func isBindings(res *resource) bool {
	return res.builtin && res.gvr.GroupResource() == bindingsGVR.GroupResource()
}

// handleBinding answers a create of pods/{name}/binding or of bindings.
func (s *Server) handleBinding(w http.ResponseWriter, req *request) error {
	body, err := readBody(req.r)
	if err != nil {
		return err
	}
	res := s.bindingRes()
	u, err := decodeBody(res, contentType(req.r), body)
	if err != nil {
		return err
	}
	if err := checkKind(res, u); err != nil {
		return err
	}
	b := &unstructured.Unstructured{Object: u}
	name := b.GetName()
	if req.sub == "binding" && name != req.name {
		return apierrors.NewBadRequest("name in URL does not match name in Binding object")
	}
	if ns := b.GetNamespace(); ns != "" && ns != req.namespace {
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	kind, _, _ := unstructured.NestedString(u, "target", "kind")
	node, _, _ := unstructured.NestedString(u, "target", "name")
	var errs field.ErrorList
	if kind != "" && kind != "Node" {
		errs = append(errs, field.NotSupported(field.NewPath("target", "kind"), kind, []string{"Node", "<empty>"}))
	}
	if node == "" {
		errs = append(errs, field.Required(field.NewPath("target", "name"), ""))
	}
	if len(errs) > 0 {
		// kube-apiserver returns these as a plain error: 500, no reason.
		return &apierrors.StatusError{ErrStatus: metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: errs.ToAggregate().Error(),
		}}
	}
	var opts metav1.CreateOptions
	if err := scheme.ParameterCodec().DecodeParameters(req.r.URL.Query(), optionsGV, &opts); err != nil {
		return apierrors.NewBadRequest(err.Error())
	}

	pods := s.podsRes()
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.st.get(pods, key{req.namespace, name})
	if o == nil {
		return apierrors.NewNotFound(pods.groupResource(), name)
	}
	m := o.meta()
	storageKey := "/registry/pods/" + req.namespace + "/" + name
	if uid := b.GetUID(); uid != "" && uid != m.GetUID() {
		return apierrors.NewConflict(pods.groupResource(), name, fmt.Errorf("StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: %v, UID in object meta: %v", storageKey, uid, m.GetUID()))
	}
	if rv := b.GetResourceVersion(); rv != "" && rv != m.GetResourceVersion() {
		return apierrors.NewConflict(pods.groupResource(), name, fmt.Errorf("StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", storageKey, rv, m.GetResourceVersion()))
	}
	bindingGR := schema.GroupResource{Resource: "pods/binding"}
	if m.GetDeletionTimestamp() != nil {
		return apierrors.NewConflict(bindingGR, name, fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", name))
	}
	if bound, _, _ := unstructured.NestedString(o.u, "spec", "nodeName"); bound != "" {
		return apierrors.NewConflict(bindingGR, name, fmt.Errorf("pod %v is already assigned to node %q", name, bound))
	}
	if gates, _, _ := unstructured.NestedSlice(o.u, "spec", "schedulingGates"); len(gates) > 0 {
		return apierrors.NewConflict(bindingGR, name, fmt.Errorf("pod %v has non-empty .spec.schedulingGates", name))
	}
	if !isDryRun(opts.DryRun) {
		pu := o.copy()
		p := &unstructured.Unstructured{Object: pu}
		_ = unstructured.SetNestedField(pu, node, "spec", "nodeName")
		unstructured.RemoveNestedField(pu, "status", "nominatedNodeName")
		if add := b.GetAnnotations(); len(add) > 0 {
			ann := p.GetAnnotations()
			if ann == nil {
				ann = map[string]string{}
			}
			for k, v := range add {
				ann[k] = v
			}
			p.SetAnnotations(ann)
		}
		if add := b.GetLabels(); len(add) > 0 {
			l := p.GetLabels()
			if l == nil {
				l = map[string]string{}
			}
			for k, v := range add {
				l[k] = v
			}
			p.SetLabels(l)
		}
		setScheduled(pu, s.clock.Now())
		rv := s.st.next()
		p.SetResourceVersion(strconv.FormatUint(rv, 10))
		s.put(watch.Modified, newObject(pods, pu, rv), o)
	}
	writeTyped(w, req.mt, http.StatusCreated, &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess, Code: http.StatusCreated,
	})
	return nil
}

// setScheduled sets the pod's PodScheduled condition to True, its
// transition time now when it was not True before.
func setScheduled(u map[string]any, now time.Time) {
	conds, _, _ := unstructured.NestedSlice(u, "status", "conditions")
	ts := now.UTC().Truncate(time.Second).Format(time.RFC3339)
	for _, c := range conds {
		cm, ok := c.(map[string]any)
		if !ok || cm["type"] != "PodScheduled" {
			continue
		}
		if cm["status"] != "True" {
			cm["status"] = "True"
			cm["lastTransitionTime"] = ts
		}
		_ = unstructured.SetNestedSlice(u, conds, "status", "conditions")
		return
	}
	conds = append(conds, map[string]any{"type": "PodScheduled", "status": "True", "lastProbeTime": nil, "lastTransitionTime": ts})
	_ = unstructured.SetNestedSlice(u, conds, "status", "conditions")
}

func (s *Server) bindingRes() *resource {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.reg.byGVR[bindingsGVR]; r != nil {
		return r
	}
	return bindingResource()
}

func (s *Server) podsRes() *resource {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reg.byGVR[podsGVR]
}
