package apipath

import (
	"slices"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	cases := []struct {
		name string
		path string
		ok   bool
		want Path
	}{
		{"a core collection in a namespace", "/api/v1/namespaces/ns/pods", true, Path{Version: "v1", Namespace: "ns", InNamespace: true, Parts: []string{"pods"}}},
		{"a named object's subresource", "/apis/apps/v1/namespaces/ns/deployments/d/status", true, Path{Group: "apps", Version: "v1", Namespace: "ns", InNamespace: true, Parts: []string{"deployments", "d", "status"}}},
		{"a namespace itself", "/api/v1/namespaces/ns", true, Path{Version: "v1", Namespace: "ns", Parts: []string{"namespaces", "ns"}}},
		{"a namespace's finalize subresource", "/api/v1/namespaces/ns/finalize", true, Path{Version: "v1", Namespace: "ns", Parts: []string{"namespaces", "ns", "finalize"}}},
		{"the namespaces collection", "/api/v1/namespaces", true, Path{Version: "v1", Parts: []string{"namespaces"}}},
		{"a cluster-scoped object", "/api/v1/nodes/n1", true, Path{Version: "v1", Parts: []string{"nodes", "n1"}}},
		{"a watch segment", "/apis/coordination.k8s.io/v1/watch/namespaces/ns/leases/l", true, Path{Group: "coordination.k8s.io", Version: "v1", Watch: true, Namespace: "ns", InNamespace: true, Parts: []string{"leases", "l"}}},
		{"a proxy segment", "/api/v1/proxy/nodes/n1/x", true, Path{Version: "v1", Proxy: true, Parts: []string{"nodes", "n1", "x"}}},
		{"trailing slash", "/api/v1/pods/", true, Path{Version: "v1", Parts: []string{"pods"}}},
		{"discovery of a group version", "/apis/apps/v1", false, Path{}},
		{"core discovery", "/api/v1", false, Path{}},
		{"a bare watch segment", "/api/v1/watch", false, Path{}},
		{"health", "/healthz", false, Path{}},
		{"empty", "", false, Path{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Split(c.path)
			if ok != c.ok || got.Group != c.want.Group || got.Version != c.want.Version || got.Watch != c.want.Watch ||
				got.Proxy != c.want.Proxy || got.Namespace != c.want.Namespace || got.InNamespace != c.want.InNamespace ||
				!slices.Equal(got.Parts, c.want.Parts) {
				t.Fatalf("Split(%q) = %+v, %v; want %+v, %v", c.path, got, ok, c.want, c.ok)
			}
		})
	}
}

func FuzzSplit(f *testing.F) {
	for _, p := range []string{"/api/v1/namespaces/ns/pods", "/apis/a/v1/watch/namespaces/n/x/y/z", "/api/v1/namespaces/ns/status", "/apis//", "/"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, ok := Split(p)
		if !ok {
			return
		}
		if len(got.Parts) == 0 {
			t.Fatalf("Split(%q): no parts", p)
		}
		// Joined again, the pieces are the path.
		segs := []string{"apis", got.Group, got.Version}
		if got.Group == "" && strings.HasPrefix(strings.Trim(p, "/"), "api/") {
			segs = []string{"api", got.Version}
		}
		if got.Watch {
			segs = append(segs, "watch")
		}
		if got.Proxy {
			segs = append(segs, "proxy")
		}
		if got.InNamespace {
			segs = append(segs, "namespaces", got.Namespace)
		}
		segs = append(segs, got.Parts...)
		if j := strings.Join(segs, "/"); j != strings.Trim(p, "/") {
			t.Fatalf("Split(%q) = %+v: joined again %q", p, got, j)
		}
	})
}
