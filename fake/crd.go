package fake

import (
	"reflect"
	"strconv"

	"github.com/kubego/kubego/fake/internal/crdschema"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// crdGVR is served by every fake server: creating a CustomResourceDefinition
// serves its resource, as kube-apiserver's apiextensions controllers do.
var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

func crdResource() *resource {
	return &resource{
		gvr: crdGVR, gvk: crdGVR.GroupVersion().WithKind("CustomResourceDefinition"),
		status: true, generation: true, shortNames: []string{"crd", "crds"}, categories: []string{"api-extensions"},
	}
}

// crdResources returns the resources a CustomResourceDefinition serves.
func crdResources(u map[string]any) []*resource {
	group, _, _ := unstructured.NestedString(u, "spec", "group")
	plural, _, _ := unstructured.NestedString(u, "spec", "names", "plural")
	kind, _, _ := unstructured.NestedString(u, "spec", "names", "kind")
	scope, _, _ := unstructured.NestedString(u, "spec", "scope")
	short, _, _ := unstructured.NestedStringSlice(u, "spec", "names", "shortNames")
	cats, _, _ := unstructured.NestedStringSlice(u, "spec", "names", "categories")
	var storage string
	if sv := storedVersions(u); len(sv) > 0 {
		storage, _ = sv[0].(string)
	}
	var out []*resource
	for _, sv := range servedCRDVersions(u, plural, kind) {
		name, status, scale := sv.name, sv.status, sv.scale
		sch, _, _ := unstructured.NestedMap(sv.spec, "schema", "openAPIV3Schema")
		out = append(out, &resource{
			schema:     crdschema.Schema(sch),
			gvr:        schema.GroupVersionResource{Group: group, Version: name, Resource: plural},
			gvk:        schema.GroupVersionKind{Group: group, Version: name, Kind: kind},
			namespaced: scope == "Namespaced", status: status, scale: scale, generation: true,
			shortNames: short, categories: cats, storageVersion: storage,
		})
	}
	return out
}

// crdCreated serves the new definition's resources and marks it
// Established, as the apiextensions controllers would. Caller holds s.mu.
func (s *Server) crdCreated(o *object) {
	for _, r := range crdResources(o.u) {
		r.rules = r.schema.CompileRules()
		s.reg.add(r)
	}
	u := o.copy()
	names, _, _ := unstructured.NestedMap(u, "spec", "names")
	now := metav1.NewTime(s.clock.Now()).UTC().Format("2006-01-02T15:04:05Z")
	cond := func(t, reason, msg string) any {
		return map[string]any{"type": t, "status": "True", "lastTransitionTime": now, "reason": reason, "message": msg}
	}
	u["status"] = map[string]any{
		"acceptedNames":  names,
		"conditions":     []any{cond("NamesAccepted", "NoConflicts", "no conflicts found"), cond("Established", "InitialNamesAccepted", "the initial names have been accepted")},
		"storedVersions": storedVersions(u),
	}
	rv := s.st.next()
	(&unstructured.Unstructured{Object: u}).SetResourceVersion(strconv.FormatUint(rv, 10))
	s.put(watch.Modified, newObject(o.res, u, rv), o)
	s.crdAPIServices(u)
}

func storedVersions(u map[string]any) []any {
	versions, _, _ := unstructured.NestedSlice(u, "spec", "versions")
	for _, v := range versions {
		if vm, ok := v.(map[string]any); ok {
			if st, _, _ := unstructured.NestedBool(vm, "storage"); st {
				name, _, _ := unstructured.NestedString(vm, "name")
				return []any{name}
			}
		}
	}
	return nil
}

// crdUpdated makes the served resources of the definition take its new
// version schemas, as kube-apiserver does: validation, pruning, defaulting
// and the server-side apply schema follow them from the next write. The
// versions served, their subresources and names stay as created. Caller
// holds s.mu.
func (s *Server) crdUpdated(o *object) {
	for _, r := range crdResources(o.u) {
		cur := s.reg.byGVR[r.gvr]
		if cur == nil || cur.builtin || reflect.DeepEqual(cur.schema, r.schema) {
			continue
		}
		// Every reader of a resource's schema holds s.mu.
		cur.schema, cur.rules = r.schema, r.schema.CompileRules()
		s.dropFieldManagers(r.gvr)
	}
}

// dropFieldManagers forgets the field managers and type converter of gvr,
// so that the next write builds them from its current schema. Caller holds
// s.mu.
func (s *Server) dropFieldManagers(gvr schema.GroupVersionResource) {
	for _, sub := range []string{"", "status", "scale"} {
		delete(s.fms, fmKey{gvr: gvr, sub: sub})
	}
	delete(s.tcs, gvr)
}

// crdDeleted stops serving the definition's resources and deletes their
// objects. Caller holds s.mu.
func (s *Server) crdDeleted(o *object) {
	for _, r := range crdResources(o.u) {
		if cur := s.reg.byGVR[r.gvr]; cur != nil {
			for _, obj := range s.st.data[r.gvr] {
				s.remove(obj)
			}
			delete(s.reg.byGVR, r.gvr)
			delete(s.reg.byGVK, cur.gvk)
			s.dropFieldManagers(r.gvr)
		}
	}
	s.dropCRDAPIServices(o.u)
}

// servedCRDVersion is one served version of a CustomResourceDefinition.
type servedCRDVersion struct {
	name          string
	spec          map[string]any // the version's entry in spec.versions
	status, scale bool           // its subresources
}

// servedCRDVersions lists the served versions of the definition u, none
// when its plural or kind is missing.
func servedCRDVersions(u map[string]any, plural, kind string) []servedCRDVersion {
	if plural == "" || kind == "" {
		return nil
	}
	versions, _, _ := unstructured.NestedSlice(u, "spec", "versions")
	var out []servedCRDVersion
	for _, v := range versions {
		vm, ok := v.(map[string]any)
		if !ok {
			continue
		}
		name, _, _ := unstructured.NestedString(vm, "name")
		served, _, _ := unstructured.NestedBool(vm, "served")
		if !served || name == "" {
			continue
		}
		_, status, _ := unstructured.NestedFieldNoCopy(vm, "subresources", "status")
		_, scale, _ := unstructured.NestedFieldNoCopy(vm, "subresources", "scale")
		out = append(out, servedCRDVersion{name: name, spec: vm, status: status, scale: scale})
	}
	return out
}
