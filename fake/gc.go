package fake

import (
	"slices"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// Garbage collection, which a real cluster runs in kube-controller-manager,
// done synchronously at each deletion: dependents whose owners are all gone
// are deleted, others lose the reference.

// dependents returns the stored objects that name uid as an owner.
func (s *Server) dependents(uid types.UID) []*object {
	var out []*object
	for _, m := range s.st.data {
		for _, o := range m {
			for _, ref := range o.meta().GetOwnerReferences() {
				if ref.UID == uid {
					out = append(out, o)
					break
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b *object) int {
		if a.key.less(b.key) {
			return -1
		}
		if b.key.less(a.key) {
			return 1
		}
		return 0
	})
	return out
}

// collectDependents does the garbage collector's job for a deleted owner
// (background propagation): each dependent with no other live owner is
// deleted; one with other owners loses the reference.
func (s *Server) collectDependents(uid types.UID) {
	for _, d := range s.dependents(uid) {
		cur := s.st.get(d.res, d.key)
		if cur == nil {
			continue
		}
		var others []metav1.OwnerReference
		for _, ref := range cur.meta().GetOwnerReferences() {
			if ref.UID != uid && s.st.uids[ref.UID] != nil {
				others = append(others, ref)
			}
		}
		if len(others) > 0 {
			s.dropOwner(cur, uid)
			continue
		}
		_, _ = s.delete(cur, deleteOpts{propagation: metav1.DeletePropagationBackground})
	}
}

func (s *Server) orphanDependents(uid types.UID) {
	for _, d := range s.dependents(uid) {
		s.dropOwner(d, uid)
	}
}

func (s *Server) dropOwner(o *object, uid types.UID) {
	u := o.copy()
	uu := &unstructured.Unstructured{Object: u}
	var keep []metav1.OwnerReference
	for _, ref := range uu.GetOwnerReferences() {
		if ref.UID != uid {
			keep = append(keep, ref)
		}
	}
	uu.SetOwnerReferences(keep)
	rv := s.st.next()
	uu.SetResourceVersion(strconv.FormatUint(rv, 10))
	s.put(watch.Modified, newObject(o.res, u, rv), o)
}
