package fake

import (
	"encoding/json"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// apiServicesGVR is apiregistration.k8s.io's one resource. Its kind has no
// Go type in k8s.io/api (it lives in kube-aggregator), so the fake serves
// it in JSON only, like a custom resource.
var apiServicesGVR = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

func apiServiceResource() *resource {
	return &resource{
		gvr: apiServicesGVR, gvk: apiServicesGVR.GroupVersion().WithKind("APIService"),
		status: true, generation: true, categories: []string{"api-extensions"},
	}
}

// seedAPIServices registers, as kube-apiserver does at start, one
// APIService for each group-version of the capture that the server serves
// (a version only Options.AllVersions adds has none). Caller holds s.mu.
func (s *Server) seedAPIServices() {
	data, ok := capturedEntry("apiservices.json")
	if !ok {
		return
	}
	var items []map[string]any
	if err := json.Unmarshal(data, &items); err != nil {
		return
	}
	served := map[schema.GroupVersion]bool{}
	for gvr := range s.reg.byGVR {
		served[gvr.GroupVersion()] = true
	}
	res := s.reg.byGVR[apiServicesGVR]
	now := metav1.NewTime(s.clock.Now()).UTC().Format("2006-01-02T15:04:05Z")
	for _, u := range items {
		spec, _ := u["spec"].(map[string]any)
		group, _ := spec["group"].(string)
		version, _ := spec["version"].(string)
		if !served[schema.GroupVersion{Group: group, Version: version}] {
			continue
		}
		status := u["status"]
		if st, ok := status.(map[string]any); ok {
			if conds, ok := st["conditions"].([]any); ok {
				for _, c := range conds {
					if cm, ok := c.(map[string]any); ok {
						cm["lastTransitionTime"] = now
					}
				}
			}
		}
		s.registerAPIService(res, u, status)
	}
}

// registerAPIService creates the APIService u and then writes its status,
// as kube-apiserver's registration and availability controllers do.
// Caller holds s.mu.
func (s *Server) registerAPIService(res *resource, u map[string]any, status any) {
	o, err := s.create(&request{res: res}, u, writeOpts{manager: "kube-apiserver"}, false)
	if err != nil {
		s.logger.Warn("fake: APIService not registered", "name", u["metadata"], "err", err)
		return
	}
	// Create drops the status, as for every resource with a status
	// subresource; the aggregator then writes it.
	withStatus := o.copy()
	withStatus["status"] = status
	rv := s.st.next()
	(&unstructured.Unstructured{Object: withStatus}).SetResourceVersion(strconv.FormatUint(rv, 10))
	s.put(watch.Modified, newObject(res, withStatus, rv), o)
}

// apiServiceName is the name of the APIService of a group-version.
func apiServiceName(gv schema.GroupVersion) string { return gv.Version + "." + gv.Group }

// crdAPIServices registers a local APIService for each group-version the
// definition u serves that has none yet, as kube-apiserver does for custom
// resources. Caller holds s.mu.
func (s *Server) crdAPIServices(u map[string]any) {
	res := s.reg.byGVR[apiServicesGVR]
	if res == nil {
		return
	}
	now := metav1.NewTime(s.clock.Now()).UTC().Format("2006-01-02T15:04:05Z")
	for _, r := range crdResources(u) {
		gv := r.gvr.GroupVersion()
		if s.st.get(res, key{name: apiServiceName(gv)}) != nil {
			continue
		}
		s.registerAPIService(res, map[string]any{
			"apiVersion": apiServicesGVR.GroupVersion().String(), "kind": "APIService",
			"metadata": map[string]any{
				"name":   apiServiceName(gv),
				"labels": map[string]any{"kube-aggregator.kubernetes.io/automanaged": "true"},
			},
			"spec": map[string]any{"group": gv.Group, "version": gv.Version, "groupPriorityMinimum": int64(1000), "versionPriority": int64(100)},
		}, map[string]any{"conditions": []any{map[string]any{
			"type": "Available", "status": "True", "lastTransitionTime": now,
			"reason": "Local", "message": "Local APIServices are always available",
		}}})
	}
}

// dropCRDAPIServices removes the automatic APIServices of the
// group-versions no definition serves any more. Caller holds s.mu, after
// the definition's resources left the registry.
func (s *Server) dropCRDAPIServices(u map[string]any) {
	res := s.reg.byGVR[apiServicesGVR]
	if res == nil {
		return
	}
	for _, r := range crdResources(u) {
		gv := r.gvr.GroupVersion()
		stillServed := false
		for gvr := range s.reg.byGVR {
			stillServed = stillServed || gvr.GroupVersion() == gv
		}
		if o := s.st.get(res, key{name: apiServiceName(gv)}); o != nil && !stillServed {
			if o.meta().GetLabels()["kube-aggregator.kubernetes.io/automanaged"] == "true" {
				s.remove(o)
			}
		}
	}
}
