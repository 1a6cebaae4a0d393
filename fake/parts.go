package fake

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// part is a subresource through which a write changes only some fields
// of its object, as kube-apiserver's strategy for it decides: the fields
// under keep come from the stored object, except those under take, which
// come from the request.
type part struct {
	keep, take [][]string
	// containerTake are fields of each container (regular and init, matched
	// by name) that come from the request after keep and take are applied.
	containerTake []string
	verbs         []string
}

// resetForStatus are the metadata fields a status-like write cannot
// change (apimachinery's ResetObjectMetaForStatus).
var resetForStatus = [][]string{
	{"metadata", "labels"}, {"metadata", "annotations"}, {"metadata", "finalizers"},
	{"metadata", "ownerReferences"}, {"metadata", "deletionTimestamp"},
}

// builtinParts are the subresources of built-in resources, other than
// status and scale, that write part of their object.
var builtinParts = map[schema.GroupResource]map[string]part{
	{Resource: "pods"}: {
		"ephemeralcontainers": {
			keep: append([][]string{{"spec"}, {"status"}}, resetForStatus...), take: [][]string{{"spec", "ephemeralContainers"}},
			verbs: verbsSubres,
		},
		"resize": {
			keep:          append([][]string{{"spec"}, {"status"}}, resetForStatus...),
			containerTake: []string{"resources", "resizePolicy"},
			verbs:         verbsSubres,
		},
	},
	{Resource: "namespaces"}: {"finalize": {keep: [][]string{{"status"}}, verbs: []string{"update"}}},
	{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}: {"approval": {
		keep: [][]string{{"spec"}, {"status"}}, take: [][]string{{"status", "conditions"}},
		verbs: verbsSubres,
	}},
}

// mainKeeps are the fields that a write to a built-in main resource cannot
// change, beyond the status: a namespace's finalizers change only through
// namespaces/finalize.
var mainKeeps = map[schema.GroupResource]part{
	{Resource: "namespaces"}: {keep: [][]string{{"spec", "finalizers"}}},
}

// part returns res's part subresource sub.
func (r *resource) part(sub string) (part, bool) {
	if !r.builtin {
		return part{}, false
	}
	p, ok := builtinParts[r.gvr.GroupResource()][sub]
	return p, ok
}

// partNames returns the names of res's part subresources, sorted.
func (r *resource) partNames() []string {
	if !r.builtin {
		return nil
	}
	return slices.Sorted(maps.Keys(builtinParts[r.gvr.GroupResource()]))
}

// apply makes u, the content a request writes, what p lets it change of
// old. u is modified; old is not.
func (p part) apply(u, old map[string]any) {
	type field struct {
		v  any
		ok bool
	}
	requested := map[string]map[string]any{}
	for _, list := range [][]string{{"spec", "containers"}, {"spec", "initContainers"}} {
		if len(p.containerTake) == 0 {
			break
		}
		cs, _, _ := unstructured.NestedFieldNoCopy(u, list...)
		items, _ := cs.([]any)
		for _, c := range items {
			if cm, ok := c.(map[string]any); ok {
				name, _ := cm["name"].(string)
				requested[list[1]+"/"+name] = cm
			}
		}
	}
	taken := make([]field, len(p.take))
	for i, path := range p.take {
		taken[i].v, taken[i].ok, _ = unstructured.NestedFieldNoCopy(u, path...)
	}
	set := func(path []string, v any, ok bool) {
		if !ok {
			unstructured.RemoveNestedField(u, path...)
			return
		}
		_ = unstructured.SetNestedField(u, deepCopyValue(v), path...)
	}
	for _, path := range p.keep {
		v, ok, _ := unstructured.NestedFieldNoCopy(old, path...)
		set(path, v, ok)
	}
	for i, path := range p.take {
		set(path, taken[i].v, taken[i].ok)
	}
	for _, list := range [][]string{{"spec", "containers"}, {"spec", "initContainers"}} {
		if len(p.containerTake) == 0 {
			break
		}
		cs, _, _ := unstructured.NestedFieldNoCopy(u, list...)
		items, _ := cs.([]any)
		for _, c := range items {
			cm, ok := c.(map[string]any)
			if !ok {
				continue
			}
			name, _ := cm["name"].(string)
			req, ok := requested[list[1]+"/"+name]
			if !ok {
				continue
			}
			for _, f := range p.containerTake {
				if v, ok := req[f]; ok {
					cm[f] = deepCopyValue(v)
				} else {
					delete(cm, f)
				}
			}
		}
	}
}
