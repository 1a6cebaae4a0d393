package fake

import (
	"crypto/sha256"
	"encoding/base64"
	"math"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// How kube-apiserver orders discovery. Groups come by the priority of
// their APIServices (spec.groupPriorityMinimum, highest first), not by
// name: clients that resolve a short or ambiguous resource name take the
// first group that has it. Versions within a group come by
// spec.versionPriority, then by Kubernetes version order.
//
// The two forms break ties differently, as kube-apiserver does: the
// aggregated form by group name, the legacy APIGroupList by the name of
// the group's first APIService ("v1.apps"). The aggregator's own group,
// apiregistration.k8s.io, comes first in both.

// gvPriority is what one group-version's APIService says.
type gvPriority struct {
	group, version int64
	name           string
}

// discoveryPriorities reads the priorities of the APIServices stored.
// A group-version without an APIService has priority zero.
func (s *Server) discoveryPriorities() map[schema.GroupVersion]gvPriority {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[schema.GroupVersion]gvPriority{}
	res := s.reg.byGVR[apiServicesGVR]
	if res == nil {
		return out
	}
	for _, o := range s.st.snapshot(res, s.st.rv) {
		group, _, _ := unstructured.NestedString(o.u, "spec", "group")
		version, _, _ := unstructured.NestedString(o.u, "spec", "version")
		gp, _ := num(o.u, "spec", "groupPriorityMinimum")
		vp, _ := num(o.u, "spec", "versionPriority")
		out[schema.GroupVersion{Group: group, Version: version}] = gvPriority{group: gp, version: vp, name: o.key.name}
	}
	return out
}

// orderedGroupVersions returns the served group-versions of the named
// groups (the legacy core group alone, or every other group) in
// discovery's order for the aggregated (aggregated true) or legacy form.
func (s *Server) orderedGroupVersions(core, aggregated bool) []schema.GroupVersion {
	prio := s.discoveryPriorities()
	type groupKey struct {
		priority int64
		tie      string
	}
	keys := map[string]groupKey{}
	var gvs []schema.GroupVersion
	for _, gv := range s.groupVersions() {
		if (gv.Group == "") != core {
			continue
		}
		gvs = append(gvs, gv)
		p := prio[gv]
		if gv.Group == apiServicesGVR.Group {
			// The aggregator serves its own group, first, with no
			// APIService of its own.
			p.group = math.MaxInt64
		}
		k, seen := keys[gv.Group]
		tie := gv.Group
		if !aggregated {
			tie = p.name
		}
		switch {
		case !seen, p.group > k.priority:
			keys[gv.Group] = groupKey{p.group, tie}
		case p.group == k.priority && !aggregated && tie < k.tie:
			keys[gv.Group] = groupKey{p.group, tie}
		}
	}
	slices.SortStableFunc(gvs, func(a, b schema.GroupVersion) int {
		if a.Group != b.Group {
			ka, kb := keys[a.Group], keys[b.Group]
			switch {
			case ka.priority != kb.priority:
				if ka.priority > kb.priority {
					return -1
				}
				return 1
			case ka.tie != kb.tie:
				return strings.Compare(ka.tie, kb.tie)
			}
			return strings.Compare(a.Group, b.Group)
		}
		pa, pb := prio[a].version, prio[b].version
		switch {
		case pa > pb:
			return -1
		case pa < pb:
			return 1
		case versionLess(a.Version, b.Version):
			return -1
		case versionLess(b.Version, a.Version):
			return 1
		}
		return 0
	})
	return gvs
}

// builtinStorage are the built-in resources kube-apiserver stores in
// another group-version than the one they are served at (every version
// of them).
var builtinStorage = map[schema.GroupResource]schema.GroupVersion{
	{Group: "events.k8s.io", Resource: "events"}:                             {Version: "v1"},
	{Group: "autoscaling", Resource: "horizontalpodautoscalers"}:             {Group: "autoscaling", Version: "v2"},
	{Group: "certificates.k8s.io", Resource: "clustertrustbundles"}:          {Group: "certificates.k8s.io", Version: "v1beta1"},
	{Group: "certificates.k8s.io", Resource: "podcertificaterequests"}:       {Group: "certificates.k8s.io", Version: "v1beta1"},
	{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}:   {Group: "apiextensions.k8s.io", Version: "v1beta1"},
	{Group: "resource.k8s.io", Resource: "devicetaintrules"}:                 {Group: "resource.k8s.io", Version: "v1beta2"},
	{Group: "storagemigration.k8s.io", Resource: "storageversionmigrations"}: {Group: "storagemigration.k8s.io", Version: "v1beta1"},
}

// unstoredResources are the built-in resources with nothing in storage
// (no storageVersionHash): besides the reviews, these.
var unstoredResources = map[schema.GroupResource]bool{
	{Resource: "componentstatuses"}: true,
	{Resource: "bindings"}:          true,
}

// storageVersionHash is the storageVersionHash legacy discovery gives
// res: a digest of the group, version and kind it is stored as ("" for
// a resource with nothing stored).
func (s *Server) storageVersionHash(res *resource) string {
	gr := res.gvr.GroupResource()
	if reviews[gr] != nil || (res.builtin && unstoredResources[gr]) {
		return ""
	}
	gv := res.gvk.GroupVersion()
	switch {
	case (res.builtin || gr == crdGVR.GroupResource()) && builtinStorage[gr] != (schema.GroupVersion{}):
		gv = builtinStorage[gr]
	case res.builtin && prerelease(gv.Version):
		// A pre-release version is stored as the group's GA version of
		// the resource, when there is one.
		s.mu.Lock()
		for _, v := range []string{"v1", "v2"} {
			if s.reg.byGVR[gr.WithVersion(v)] != nil {
				gv.Version = v
				break
			}
		}
		s.mu.Unlock()
	case res.storageVersion != "":
		gv.Version = res.storageVersion
	}
	sum := sha256.Sum256([]byte(gv.Group + "/" + gv.Version + "/" + res.gvk.Kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}
