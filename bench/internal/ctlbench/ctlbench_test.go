package ctlbench

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestVerbNamesRequestsByAPIVerb(t *testing.T) {
	for _, tc := range []struct {
		method, url, want string
	}{
		{"GET", "/apis/apps/v1/namespaces/ns/deployments?limit=500", "list"},
		{"GET", "/apis/apps/v1/namespaces/ns/deployments?watch=true&sendInitialEvents=true", "watch"},
		{"GET", "/apis/apps/v1/deployments?watch=1", "watch"},
		{"GET", "/apis/apps/v1/namespaces/ns/deployments/d", "get"},
		{"GET", "/api/v1/namespaces/ns", "get"},
		{"GET", "/api/v1/namespaces", "list"},
		{"GET", "/api/v1/pods", "list"},
		{"GET", "/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns/foos/f/status", "get"},
		{"POST", "/apis/events.k8s.io/v1/namespaces/ns/events", "create"},
		{"PUT", "/apis/apps/v1/namespaces/ns/deployments/d", "update"},
		{"PATCH", "/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns/foos/f/status", "patch"},
		{"DELETE", "/apis/apps/v1/namespaces/ns/deployments", "delete"},
		{"GET", "/apis", "discovery"},
		{"GET", "/api", "discovery"},
		{"GET", "/apis/apps/v1", "discovery"},
		{"GET", "/openapi/v3", "discovery"},
	} {
		t.Run(tc.method+" "+tc.url, func(t *testing.T) {
			if got := Verb(httptest.NewRequest(tc.method, tc.url, nil)); got != tc.want {
				t.Fatalf("Verb = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestVerbsCountsEveryRequestAndTotals(t *testing.T) {
	var v Verbs
	rt := v.Wrap(rtFunc(func(*http.Request) (*http.Response, error) { return &http.Response{StatusCode: 200}, nil }))
	for _, u := range []string{"/api/v1/namespaces/a/pods", "/api/v1/namespaces/a/pods/p", "/api/v1/namespaces/a/pods/q"} {
		if _, err := rt.RoundTrip(httptest.NewRequest("GET", u, nil)); err != nil {
			t.Fatal(err)
		}
	}
	m := map[string]float64{}
	v.Metrics(m)
	if m["requests_list"] != 1 || m["requests_get"] != 2 || m["requests_total"] != 3 {
		t.Fatalf("counts = %v, want 1 list, 2 gets, 3 in total", m)
	}
}
