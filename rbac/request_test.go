package rbac

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestRequestOf(t *testing.T) {
	cases := []struct {
		name, method, target string
		want                 Request
	}{
		{"a get by name", "GET", "/api/v1/namespaces/ns/pods/p", Request{Verb: "get", Version: "v1", Resource: "pods", Namespace: "ns", Name: "p"}},
		{"a head is a get", "HEAD", "/api/v1/namespaces/ns/pods/p", Request{Verb: "get", Version: "v1", Resource: "pods", Namespace: "ns", Name: "p"}},
		{"a list in a namespace", "GET", "/apis/apps/v1/namespaces/ns/deployments?limit=500", Request{Verb: "list", Group: "apps", Version: "v1", Resource: "deployments", Namespace: "ns"}},
		{"a list across namespaces", "GET", "/apis/apps/v1/deployments", Request{Verb: "list", Group: "apps", Version: "v1", Resource: "deployments"}},
		{"a watch by parameter", "GET", "/api/v1/configmaps?watch=true&resourceVersion=5", Request{Verb: "watch", Version: "v1", Resource: "configmaps"}},
		{"a watch by parameter 1", "GET", "/api/v1/configmaps?watch=1", Request{Verb: "watch", Version: "v1", Resource: "configmaps"}},
		{"watch=false is a list", "GET", "/api/v1/configmaps?watch=false", Request{Verb: "list", Version: "v1", Resource: "configmaps"}},
		{"watch=0 is a list", "GET", "/api/v1/configmaps?watch=0", Request{Verb: "list", Version: "v1", Resource: "configmaps"}},
		{"a watch by segment", "GET", "/apis/coordination.k8s.io/v1/watch/namespaces/ns/leases/l", Request{Verb: "watch", Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Namespace: "ns", Name: "l"}},
		{"a list with a name selector has the name", "GET", "/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Ds1", Request{Verb: "list", Version: "v1", Resource: "secrets", Namespace: "ns", Name: "s1"}},
		{"a watch with a name selector has the name", "GET", "/api/v1/namespaces/ns/secrets?watch=true&fieldSelector=metadata.name%3D%3Ds1", Request{Verb: "watch", Version: "v1", Resource: "secrets", Namespace: "ns", Name: "s1"}},
		{"a selector on another field gives no name", "GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dn", Request{Verb: "list", Version: "v1", Resource: "pods"}},
		{"a name selector with a slash gives no name", "GET", "/api/v1/pods?fieldSelector=metadata.name%3Da%2Fb", Request{Verb: "list", Version: "v1", Resource: "pods"}},
		{"an unparsable selector gives no name", "GET", "/api/v1/pods?fieldSelector=metadata.name%3D%3D%3D", Request{Verb: "list", Version: "v1", Resource: "pods"}},
		{"a create", "POST", "/apis/events.k8s.io/v1/namespaces/ns/events", Request{Verb: "create", Group: "events.k8s.io", Version: "v1", Resource: "events", Namespace: "ns"}},
		{"a subresource create", "POST", "/api/v1/namespaces/ns/serviceaccounts/sa/token", Request{Verb: "create", Version: "v1", Resource: "serviceaccounts", Subresource: "token", Namespace: "ns", Name: "sa"}},
		{"an update of status", "PUT", "/apis/apps/v1/namespaces/ns/deployments/d/status", Request{Verb: "update", Group: "apps", Version: "v1", Resource: "deployments", Subresource: "status", Namespace: "ns", Name: "d"}},
		{"a patch", "PATCH", "/apis/apps/v1/namespaces/ns/deployments/d", Request{Verb: "patch", Group: "apps", Version: "v1", Resource: "deployments", Namespace: "ns", Name: "d"}},
		{"a delete", "DELETE", "/api/v1/namespaces/ns/pods/p", Request{Verb: "delete", Version: "v1", Resource: "pods", Namespace: "ns", Name: "p"}},
		{"a delete without a name is deletecollection", "DELETE", "/api/v1/namespaces/ns/pods", Request{Verb: "deletecollection", Version: "v1", Resource: "pods", Namespace: "ns"}},
		{"a namespace is in its own namespace", "GET", "/api/v1/namespaces/ns", Request{Verb: "get", Version: "v1", Resource: "namespaces", Namespace: "ns", Name: "ns"}},
		{"a namespace's status", "PUT", "/api/v1/namespaces/ns/status", Request{Verb: "update", Version: "v1", Resource: "namespaces", Subresource: "status", Namespace: "ns", Name: "ns"}},
		{"a cluster-scoped object", "GET", "/api/v1/nodes/n", Request{Verb: "get", Version: "v1", Resource: "nodes", Name: "n"}},
		{"a proxy has no subresource", "GET", "/api/v1/proxy/namespaces/ns/pods/p/x/y", Request{Verb: "proxy", Version: "v1", Resource: "pods", Namespace: "ns", Name: "p"}},
		{"an unknown method has no verb", "OPTIONS", "/api/v1/pods/p", Request{Version: "v1", Resource: "pods", Name: "p"}},
		{"discovery is a non-resource request", "GET", "/apis/apps/v1", Request{Verb: "get", Path: "/apis/apps/v1"}},
		{"version is a non-resource request", "GET", "/version", Request{Verb: "get", Path: "/version"}},
		{"a non-resource post", "POST", "/metrics", Request{Verb: "post", Path: "/metrics"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := RequestOf(httptest.NewRequest(c.method, c.target, nil))
			if got != c.want {
				t.Fatalf("RequestOf(%s %s) = %+v, want %+v", c.method, c.target, got, c.want)
			}
		})
	}
}

func TestRequestString(t *testing.T) {
	cases := []struct {
		req  Request
		want string
	}{
		{Request{Verb: "list", Group: "apps", Resource: "deployments", Namespace: "ns"}, "list deployments.apps in namespace ns"},
		{Request{Verb: "update", Resource: "pods", Subresource: "status", Name: "p", Namespace: "ns"}, "update pods/status p in namespace ns"},
		{Request{Verb: "get", Path: "/version"}, "get /version"},
	}
	for _, c := range cases {
		if got := c.req.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.req, got, c.want)
		}
	}
}

func FuzzRequestOf(f *testing.F) {
	for _, s := range []string{"/api/v1/namespaces/ns/pods/p", "/apis/a/v1/watch/namespaces/n/x/y/z?watch=1", "/api/v1/pods?fieldSelector=metadata.name%3Dx", "/apis//", "/", "/api/v1/proxy/nodes/n/a"} {
		f.Add("GET", s)
	}
	f.Add("DELETE", "/api/v1/namespaces/ns/pods")
	f.Fuzz(func(t *testing.T, method, target string) {
		r, err := http.NewRequest("GET", "http://h/", nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Method = method
		u, err := r.URL.Parse(target)
		if err != nil {
			return
		}
		r.URL = u
		got := RequestOf(r)
		if got.IsResource() && got.Path != "" {
			t.Fatalf("RequestOf(%s %q) = %+v: a request is either a resource or a path", method, target, got)
		}
		if got.Verb == "list" || got.Verb == "deletecollection" {
			if p := u.Path; got.Name != "" && u.Query().Get("fieldSelector") == "" {
				t.Fatalf("RequestOf(%s %q) = %+v: a collection verb with a name from the path %q", method, target, got, p)
			}
		}
		_ = got.String()
	})
}
