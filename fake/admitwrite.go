package fake

import (
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// prepareNew resets what a client cannot set on a new object, as the
// registries' PrepareForCreate do: the status of kinds with a status
// subresource (a Node is registered with its status; objects seeded through
// Add keep theirs), a Pod's initial status, a Namespace's phase and
// finalizer.
func (s *Server) prepareNew(res *resource, u map[string]any, opts writeOpts) {
	st := s.strategyOf(res)
	if res.status && !opts.seed && !st.createdWithStatus {
		delete(u, "status")
	}
	if st.prepareForCreate != nil && !opts.seed {
		st.prepareForCreate(u)
	}
	if st.prepareAlways != nil {
		st.prepareAlways(u)
	}
}

// systemFields are the metadata fields the server sets on create after
// mutating admission: the mutating webhooks do not see them, and what they
// send there is overwritten.
var systemFields = []string{"uid", "creationTimestamp", "generation"}

// withoutSystemFields is a copy of u as mutating webhooks see a new object.
func withoutSystemFields(u map[string]any) map[string]any {
	c := deepCopyValue(u).(map[string]any)
	if md, ok := c["metadata"].(map[string]any); ok {
		for _, f := range systemFields {
			delete(md, f)
		}
	}
	return c
}

// copyMeta sets the metadata fields names of dst from src (deleting those
// src lacks).
func copyMeta(dst, src map[string]any, names ...string) {
	sm, _ := src["metadata"].(map[string]any)
	dm, ok := dst["metadata"].(map[string]any)
	if !ok {
		dm = map[string]any{}
		dst["metadata"] = dm
	}
	for _, n := range names {
		if v, ok := sm[n]; ok {
			dm[n] = deepCopyValue(v)
		} else {
			delete(dm, n)
		}
	}
}

// afterCreateMutation takes a new object as the mutating webhooks left it
// through what the registry does next: its system fields, the reset of
// what clients cannot set, defaulting, pruning and validation. orig is the
// object before the webhooks. Caller holds s.mu.
func (s *Server) afterCreateMutation(req *request, mutated map[string]any, orig *unstructured.Unstructured, opts writeOpts) (map[string]any, error) {
	copyMeta(mutated, orig.Object, append([]string{"name", "namespace", "resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds"}, systemFields...)...)
	s.prepareNew(req.res, mutated, opts)
	return s.normalize(req, req.res, mutated, nil)
}

// afterUpdateMutation takes an update as the mutating webhooks left it
// through the rules of the write's (sub)resource again: a write of the main
// resource keeps the stored status, one of status keeps everything else,
// then defaulting, pruning, validation and generation. u is the update
// before the webhooks. Caller holds s.mu.
func (s *Server) afterUpdateMutation(req *request, old *object, mutated, u map[string]any) (map[string]any, error) {
	res := req.res
	copyMeta(mutated, u, "name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation", "resourceVersion")
	switch p, isPart := res.part(req.sub); {
	case isPart:
		p.apply(mutated, old.u)
	case req.sub == "status":
		st, hasStatus := mutated["status"]
		mf, hasMF, _ := unstructured.NestedFieldNoCopy(u, "metadata", "managedFields")
		mutated = old.copy()
		if hasStatus {
			mutated["status"] = st
		} else {
			delete(mutated, "status")
		}
		if md, ok := mutated["metadata"].(map[string]any); ok && hasMF {
			md["managedFields"] = mf
		}
	default:
		keepOnMainUpdate(res, mutated, old.u)
	}
	out, err := s.normalize(req, res, mutated, old.u)
	if err != nil {
		return nil, err
	}
	if st := s.strategyOf(res); st.prepareForUpdate != nil && req.sub == "" {
		st.prepareForUpdate(out, old.u)
	}
	if res.generation {
		g := old.meta().GetGeneration()
		if specChanged(res, old.u, out) {
			g++
		}
		(&unstructured.Unstructured{Object: out}).SetGeneration(g)
	}
	return out, nil
}

// stillFree checks, after the lock was released for webhooks, that the
// name of a create is still free and its namespace still takes objects.
// Caller holds s.mu.
func (s *Server) stillFree(req *request, k key) error {
	if s.st.get(req.res, k) != nil {
		return apierrors.NewAlreadyExists(req.res.groupResource(), k.name)
	}
	if !req.res.namespaced {
		return nil
	}
	u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"namespace": k.namespace}}}
	return s.checkNamespace(req, u, true)
}

// admitDelete sends the deletion of o to the mutating, then the validating
// webhooks (with o as the old object and no object, as kube-apiserver
// does; a patch is meaningless there and ignored). The deletion of one
// object of a collection is sent as kube-apiserver sends it: with no name
// and the request's namespace. Caller holds s.mu; it is released while
// webhooks are called.
func (s *Server) admitDelete(req *request, o *object, dryRun bool) error {
	a := newAdmission(req, admissionv1.Delete, req.name, dryRun)
	a.collection = req.verb == "deletecollection"
	a.old = o.u
	if _, err := s.mutate(a); err != nil {
		return err
	}
	return s.validate(a)
}
