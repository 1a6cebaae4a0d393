package fake

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// A Namespace's lifecycle, which kube-apiserver's registry and
// kube-controller-manager's namespace controller share: deleting one marks
// it Terminating, deletes everything in it, and removes it once empty.

var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// deleteNamespace marks ns Terminating and does the namespace
// controller's job: delete everything in it, then finalize it once empty.
func (s *Server) deleteNamespace(ns *object) *object {
	cur := ns
	if ns.meta().GetDeletionTimestamp() == nil {
		u := ns.copy()
		uu := &unstructured.Unstructured{Object: u}
		now := metav1.NewTime(s.clock.Now().Truncate(time.Second))
		uu.SetDeletionTimestamp(&now)
		zero := int64(0)
		uu.SetDeletionGracePeriodSeconds(&zero)
		_ = unstructured.SetNestedField(u, "Terminating", "status", "phase")
		rv := s.st.next()
		uu.SetResourceVersion(strconv.FormatUint(rv, 10))
		cur = newObject(ns.res, u, rv)
		s.put(watch.Modified, cur, ns)
	}
	name := ns.key.name
	for _, m := range s.st.data {
		var victims []*object
		for k, o := range m {
			if o.res.namespaced && k.namespace == name {
				victims = append(victims, o)
			}
		}
		for _, v := range victims {
			if cur := s.st.get(v.res, v.key); cur != nil && cur.meta().GetDeletionTimestamp() == nil {
				zero := int64(0)
				_, _ = s.delete(cur, deleteOpts{propagation: metav1.DeletePropagationBackground, gracePeriod: &zero})
			}
		}
	}
	if fin := s.maybeFinalizeNamespace(name); fin != nil {
		return fin
	}
	if now := s.st.data[namespacesGVR][key{name: name}]; now != nil {
		return now
	}
	return cur // finalized while its last content was deleted
}

// maybeFinalizeNamespace removes a terminating namespace that has become
// empty, returning its final state (nil if it stays).
func (s *Server) maybeFinalizeNamespace(name string) *object {
	ns := s.st.data[namespacesGVR][key{name: name}]
	if ns == nil || ns.meta().GetDeletionTimestamp() == nil {
		return nil
	}
	for _, m := range s.st.data {
		for k, o := range m {
			if o.res.namespaced && k.namespace == name {
				return nil
			}
		}
	}
	if len(ns.meta().GetFinalizers()) > 0 {
		return nil
	}
	return s.remove(ns)
}

// checkNamespace enforces the namespace rules of a write: the body's
// namespace matches the URL, and the namespace exists and is not
// terminating. Caller holds s.mu.
func (s *Server) checkNamespace(req *request, u *unstructured.Unstructured, creating bool) error {
	if !req.res.namespaced {
		if u.GetNamespace() != "" {
			u.SetNamespace("")
		}
		return nil
	}
	if u.GetNamespace() == "" {
		u.SetNamespace(req.namespace)
	} else if u.GetNamespace() != req.namespace {
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	if !creating {
		return nil
	}
	ns := s.st.data[namespacesGVR][key{name: req.namespace}]
	if ns == nil {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, req.namespace)
	}
	if ns.meta().GetDeletionTimestamp() != nil {
		err := apierrors.NewForbidden(req.res.groupResource(), u.GetName(),
			fmt.Errorf("unable to create new content in namespace %s because it is being terminated", req.namespace))
		err.ErrStatus.Details.Causes = []metav1.StatusCause{{
			Type: corev1.NamespaceTerminatingCause, Field: "metadata.namespace",
			Message: fmt.Sprintf("namespace %s is being terminated", req.namespace),
		}}
		return err
	}
	return nil
}
