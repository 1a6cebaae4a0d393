package fake

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"sort"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	verbsMain   = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	verbsSubres = []string{"get", "patch", "update"}
)

const aggregatedKind = "APIGroupDiscoveryList"

// serveNonResource answers discovery, version and health paths. It
// reports whether it handled the request.
func (s *Server) serveNonResource(w http.ResponseWriter, r *http.Request) bool {
	p := strings.TrimSuffix(r.URL.Path, "/")
	switch p {
	case "/healthz", "/readyz", "/livez":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write([]byte("ok"))
		return true
	case "/version":
		data, _ := json.Marshal(s.opts.Version)
		writeRaw(w, mediaJSON, http.StatusOK, data)
		return true
	case "/api", "/apis":
		if r.Method != http.MethodGet {
			return false
		}
		if mt, ok := aggregatedMedia(r); ok {
			s.serveAggregated(w, mt, p == "/api")
			return true
		}
		mt, _ := negotiate(r, true)
		if p == "/api" {
			writeTyped(w, mt, http.StatusOK, &metav1.APIVersions{
				TypeMeta:                   metav1.TypeMeta{Kind: "APIVersions"},
				Versions:                   []string{"v1"},
				ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}},
			})
			return true
		}
		writeTyped(w, mt, http.StatusOK, s.groupList())
		return true
	}
	parts := strings.Split(strings.Trim(p, "/"), "/")
	var gv schema.GroupVersion
	switch {
	case len(parts) == 2 && parts[0] == "api":
		gv = schema.GroupVersion{Version: parts[1]}
	case len(parts) == 3 && parts[0] == "apis":
		gv = schema.GroupVersion{Group: parts[1], Version: parts[2]}
	case len(parts) == 2 && parts[0] == "apis":
		for _, g := range s.groupList().Groups {
			if g.Name == parts[1] {
				mt, _ := negotiate(r, true)
				g := g
				g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
				writeTyped(w, mt, http.StatusOK, &g)
				return true
			}
		}
		return false
	default:
		return false
	}
	list := s.resourceList(gv)
	if list == nil {
		return false
	}
	mt, _ := negotiate(r, true)
	writeTyped(w, mt, http.StatusOK, list)
	return true
}

// aggregatedMedia reports whether Accept asks for aggregated discovery,
// and in which encoding.
func aggregatedMedia(r *http.Request) (string, bool) {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		t, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if params["g"] == "apidiscovery.k8s.io" && params["v"] == "v2" && params["as"] == aggregatedKind {
			switch t {
			case mediaJSON, mediaProtobuf:
				return t, true
			}
		}
	}
	return "", false
}

func (s *Server) sortedResources(gv schema.GroupVersion) []*resource {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*resource
	for gvr, res := range s.reg.byGVR {
		if gvr.GroupVersion() == gv {
			out = append(out, res)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].gvr.Resource < out[j].gvr.Resource })
	return out
}

func (s *Server) groupVersions() []schema.GroupVersion {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reg.groupVersions()
}

func (s *Server) groupList() *metav1.APIGroupList {
	list := &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
	idx := map[string]int{}
	for _, gv := range s.orderedGroupVersions(false, false) {
		i, ok := idx[gv.Group]
		if !ok {
			i = len(list.Groups)
			idx[gv.Group] = i
			list.Groups = append(list.Groups, metav1.APIGroup{Name: gv.Group})
		}
		gvd := metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version}
		g := &list.Groups[i]
		g.Versions = append(g.Versions, gvd)
		if len(g.Versions) == 1 {
			g.PreferredVersion = gvd
		}
	}
	return list
}

func (s *Server) resourceList(gv schema.GroupVersion) *metav1.APIResourceList {
	rs := s.sortedResources(gv)
	if len(rs) == 0 {
		return nil
	}
	list := &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: gv.String()}
	for _, res := range rs {
		list.APIResources = append(list.APIResources, metav1.APIResource{
			Name: res.gvr.Resource, SingularName: strings.ToLower(res.gvk.Kind), Namespaced: res.namespaced,
			Kind: res.gvk.Kind, Verbs: res.verbs(), ShortNames: res.shortNames, Categories: res.categories,
			StorageVersionHash: s.storageVersionHash(res),
		})
		for _, name := range res.partNames() {
			p, _ := res.part(name)
			list.APIResources = append(list.APIResources, metav1.APIResource{
				Name: res.gvr.Resource + "/" + name, Namespaced: res.namespaced, Kind: res.gvk.Kind, Verbs: p.verbs,
			})
		}
		if isBinding(res, "binding") {
			list.APIResources = append(list.APIResources, metav1.APIResource{
				Name: res.gvr.Resource + "/binding", Namespaced: res.namespaced, Kind: "Binding", Verbs: verbsCreate,
			})
		}
		if isLog(res, "log") {
			list.APIResources = append(list.APIResources, metav1.APIResource{
				Name: res.gvr.Resource + "/log", Namespaced: res.namespaced, Kind: res.gvk.Kind, Verbs: []string{"get"},
			})
		}
		if isToken(res, "token") {
			list.APIResources = append(list.APIResources, metav1.APIResource{
				Name: res.gvr.Resource + "/token", Namespaced: res.namespaced, Group: tokenRequest.gvk.Group,
				Version: tokenRequest.gvk.Version, Kind: tokenRequest.gvk.Kind, Verbs: verbsCreate,
			})
		}
		if res.scale {
			list.APIResources = append(list.APIResources, metav1.APIResource{
				Name: res.gvr.Resource + "/scale", Namespaced: res.namespaced,
				Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: verbsSubres,
			})
		}
		if res.status {
			list.APIResources = append(list.APIResources, metav1.APIResource{
				Name: res.gvr.Resource + "/status", Namespaced: res.namespaced, Kind: res.gvk.Kind, Verbs: verbsSubres,
			})
		}
	}
	return list
}

func (s *Server) serveAggregated(w http.ResponseWriter, mt string, legacy bool) {
	list := &apidiscoveryv2.APIGroupDiscoveryList{TypeMeta: metav1.TypeMeta{Kind: aggregatedKind, APIVersion: "apidiscovery.k8s.io/v2"}}
	idx := map[string]int{}
	for _, gv := range s.orderedGroupVersions(legacy, true) {
		i, ok := idx[gv.Group]
		if !ok {
			i = len(list.Items)
			idx[gv.Group] = i
			list.Items = append(list.Items, apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: gv.Group}})
		}
		vd := apidiscoveryv2.APIVersionDiscovery{Version: gv.Version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}
		for _, res := range s.sortedResources(gv) {
			scope := apidiscoveryv2.ScopeCluster
			if res.namespaced {
				scope = apidiscoveryv2.ScopeNamespace
			}
			gvk := res.gvk
			rd := apidiscoveryv2.APIResourceDiscovery{
				Resource: res.gvr.Resource, ResponseKind: &metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
				Scope: scope, SingularResource: strings.ToLower(gvk.Kind), Verbs: res.verbs(),
				ShortNames: res.shortNames, Categories: res.categories,
			}
			for _, name := range res.partNames() {
				p, _ := res.part(name)
				rd.Subresources = append(rd.Subresources, apidiscoveryv2.APISubresourceDiscovery{
					Subresource: name, ResponseKind: &metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}, Verbs: p.verbs,
				})
			}
			if isBinding(res, "binding") {
				rd.Subresources = append(rd.Subresources, apidiscoveryv2.APISubresourceDiscovery{
					Subresource: "binding", ResponseKind: &metav1.GroupVersionKind{Version: "v1", Kind: "Binding"}, Verbs: verbsCreate,
				})
			}
			if isLog(res, "log") {
				rd.Subresources = append(rd.Subresources, apidiscoveryv2.APISubresourceDiscovery{
					Subresource: "log", ResponseKind: &metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}, Verbs: []string{"get"},
				})
			}
			if isToken(res, "token") {
				tk := tokenRequest.gvk
				rd.Subresources = append(rd.Subresources, apidiscoveryv2.APISubresourceDiscovery{
					Subresource: "token", ResponseKind: &metav1.GroupVersionKind{Group: tk.Group, Version: tk.Version, Kind: tk.Kind}, Verbs: verbsCreate,
				})
			}
			if res.scale {
				rd.Subresources = append(rd.Subresources, apidiscoveryv2.APISubresourceDiscovery{
					Subresource: "scale", ResponseKind: &metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, Verbs: verbsSubres,
				})
			}
			if res.status {
				rd.Subresources = append(rd.Subresources, apidiscoveryv2.APISubresourceDiscovery{
					Subresource: "status", ResponseKind: &metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}, Verbs: verbsSubres,
				})
			}
			vd.Resources = append(vd.Resources, rd)
		}
		list.Items[i].Versions = append(list.Items[i].Versions, vd)
	}
	ct := mt + ";g=apidiscovery.k8s.io;v=v2;as=" + aggregatedKind
	var data []byte
	if mt == mediaProtobuf {
		var buf bytes.Buffer
		if err := protoSerializer.Encode(list, &buf); err != nil {
			writeError(w, mediaJSON, err)
			return
		}
		data = buf.Bytes()
	} else {
		data, _ = json.Marshal(list)
	}
	writeRaw(w, ct, http.StatusOK, data)
}
