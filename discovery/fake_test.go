package discovery_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kubego/kubego/rest"
)

// fakeDiscovery serves discovery documents. Aggregated decides whether it
// answers aggregated requests; failing lists group/version paths answering
// 503; crd adds a widgets resource in example.com/v1 when set.
type fakeDiscovery struct {
	aggregated bool
	failing    map[string]bool
	crd        atomic.Bool
	stale      bool
	count      atomic.Int64
	paths      sync.Map // path → *atomic.Int64
}

func (f *fakeDiscovery) hits(path string) int64 {
	v, ok := f.paths.Load(path)
	if !ok {
		return 0
	}
	return v.(*atomic.Int64).Load()
}

func (f *fakeDiscovery) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.count.Add(1)
	v, _ := f.paths.LoadOrStore(r.URL.Path, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
	wantsAgg := strings.Contains(r.Header.Get("Accept"), "as=APIGroupDiscoveryList")
	if f.failing[r.URL.Path] {
		w.WriteHeader(503)
		return
	}
	send := func(ct string, v any) {
		w.Header().Set("Content-Type", ct)
		_ = json.NewEncoder(w).Encode(v)
	}
	const aggCT = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	switch r.URL.Path {
	case "/version":
		send("application/json", map[string]any{"major": "1", "minor": "37", "gitVersion": "v1.37.2"})
	case "/api":
		if f.aggregated && wantsAgg {
			send(aggCT, map[string]any{"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "items": []any{
				map[string]any{"metadata": map[string]any{"name": ""}, "versions": []any{map[string]any{"version": "v1", "resources": []any{
					map[string]any{"resource": "pods", "responseKind": map[string]any{"group": "", "version": "v1", "kind": "Pod"}, "scope": "Namespaced", "singularResource": "pod", "verbs": []any{"get", "list"}, "shortNames": []any{"po"},
						"subresources": []any{map[string]any{"subresource": "status"}, map[string]any{"subresource": "log"}}},
					map[string]any{"resource": "nodes", "responseKind": map[string]any{"group": "", "version": "v1", "kind": "Node"}, "scope": "Cluster", "singularResource": "node", "verbs": []any{"get"}, "shortNames": []any{"no"}},
				}}}},
			}})
			return
		}
		send("application/json", map[string]any{"kind": "APIVersions", "versions": []any{"v1"}})
	case "/apis":
		if f.aggregated && wantsAgg {
			groups := []any{map[string]any{"metadata": map[string]any{"name": "apps"}, "versions": []any{
				map[string]any{"version": "v1", "resources": []any{
					map[string]any{"resource": "deployments", "responseKind": map[string]any{"group": "apps", "version": "v1", "kind": "Deployment"}, "scope": "Namespaced", "singularResource": "deployment", "verbs": []any{"get"}, "shortNames": []any{"deploy"}},
				}},
				map[string]any{"version": "v1beta1", "freshness": map[bool]string{true: "Stale", false: "Current"}[f.stale], "resources": []any{
					map[string]any{"resource": "deployments", "responseKind": map[string]any{"group": "apps", "version": "v1beta1", "kind": "Deployment"}, "scope": "Namespaced", "singularResource": "deployment", "verbs": []any{"get"}},
				}},
			}}}
			if f.crd.Load() {
				groups = append(groups, map[string]any{"metadata": map[string]any{"name": "example.com"}, "versions": []any{map[string]any{"version": "v1", "resources": []any{
					map[string]any{"resource": "widgets", "responseKind": map[string]any{"group": "example.com", "version": "v1", "kind": "Widget"}, "scope": "Namespaced", "singularResource": "widget", "verbs": []any{"get"}, "shortNames": []any{"wd"}},
				}}}})
			}
			send(aggCT, map[string]any{"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "items": groups})
			return
		}
		groups := []any{map[string]any{"name": "apps", "versions": []any{
			map[string]any{"groupVersion": "apps/v1", "version": "v1"}, map[string]any{"groupVersion": "apps/v1beta1", "version": "v1beta1"},
		}, "preferredVersion": map[string]any{"groupVersion": "apps/v1", "version": "v1"}},
			map[string]any{"name": "batch", "versions": []any{map[string]any{"groupVersion": "batch/v1", "version": "v1"}}, "preferredVersion": map[string]any{"groupVersion": "batch/v1", "version": "v1"}},
		}
		send("application/json", map[string]any{"kind": "APIGroupList", "groups": groups})
	case "/api/v1":
		send("application/json", map[string]any{"kind": "APIResourceList", "groupVersion": "v1", "resources": []any{
			map[string]any{"name": "pods", "singularName": "pod", "namespaced": true, "kind": "Pod", "verbs": []any{"get"}, "shortNames": []any{"po"}},
			map[string]any{"name": "pods/status", "singularName": "", "namespaced": true, "kind": "Pod", "verbs": []any{"get"}},
			map[string]any{"name": "nodes", "singularName": "node", "namespaced": false, "kind": "Node", "verbs": []any{"get"}},
		}})
	case "/apis/apps/v1":
		send("application/json", map[string]any{"kind": "APIResourceList", "groupVersion": "apps/v1", "resources": []any{
			map[string]any{"name": "deployments", "singularName": "deployment", "namespaced": true, "kind": "Deployment", "verbs": []any{"get"}, "shortNames": []any{"deploy"}},
			map[string]any{"name": "deployments/scale", "namespaced": true, "kind": "Scale", "group": "autoscaling", "version": "v1", "verbs": []any{"get"}},
		}})
	case "/apis/apps/v1beta1":
		send("application/json", map[string]any{"kind": "APIResourceList", "groupVersion": "apps/v1beta1", "resources": []any{
			map[string]any{"name": "deployments", "singularName": "deployment", "namespaced": true, "kind": "Deployment", "verbs": []any{"get"}},
		}})
	case "/apis/batch/v1":
		send("application/json", map[string]any{"kind": "APIResourceList", "groupVersion": "batch/v1", "resources": []any{
			map[string]any{"name": "jobs", "singularName": "job", "namespaced": true, "kind": "Job", "verbs": []any{"get"}},
		}})
	default:
		http.NotFound(w, r)
	}
}

func newServer(t testing.TB, f *fakeDiscovery) *rest.Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	rc, err := rest.NewClient(&rest.Config{Host: srv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return rc
}
