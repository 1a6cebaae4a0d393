package rbac

import (
	"errors"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestRuleAllows(t *testing.T) {
	pods := Request{Verb: "get", Resource: "pods", Namespace: "ns", Name: "p"}
	podStatus := Request{Verb: "update", Resource: "pods", Subresource: "status", Namespace: "ns", Name: "p"}
	deploy := Request{Verb: "list", Group: "apps", Resource: "deployments"}
	cases := []struct {
		name string
		rule rbacv1.PolicyRule
		req  Request
		want bool
	}{
		{"an exact rule", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}, pods, true},
		{"another verb", rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"pods"}}, pods, false},
		{"any verb", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{""}, Resources: []string{"pods"}}, pods, true},
		{"another group", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"apps"}, Resources: []string{"pods"}}, pods, false},
		{"any group", rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{"*"}, Resources: []string{"deployments"}}, deploy, true},
		{"any resource", rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{"apps"}, Resources: []string{"*"}}, deploy, true},
		{"a resource does not cover its subresource", rbacv1.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{""}, Resources: []string{"pods"}}, podStatus, false},
		{"a subresource rule covers it", rbacv1.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{""}, Resources: []string{"pods/status"}}, podStatus, true},
		{"a subresource rule does not cover the resource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/status"}}, pods, false},
		{"*/status covers every status", rbacv1.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{""}, Resources: []string{"*/status"}}, podStatus, true},
		{"*/scale does not cover status", rbacv1.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{""}, Resources: []string{"*/scale"}}, podStatus, false},
		{"pods/* covers no subresource", rbacv1.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{""}, Resources: []string{"pods/*"}}, podStatus, false},
		{"* covers subresources", rbacv1.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{""}, Resources: []string{"*"}}, podStatus, true},
		{"a resource name that matches", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{"q", "p"}}, pods, true},
		{"a resource name that does not", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{"q"}}, pods, false},
		{"resource names never cover a list without a name", rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{"apps"}, Resources: []string{"deployments"}, ResourceNames: []string{"d"}}, deploy, false},
		{"resource names cover a list by name", rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{"apps"}, Resources: []string{"deployments"}, ResourceNames: []string{"d"}}, Request{Verb: "list", Group: "apps", Resource: "deployments", Name: "d"}, true},
		{"a URL rule", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}}, Request{Verb: "get", Path: "/metrics"}, true},
		{"a URL prefix", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/debug/*"}}, Request{Verb: "get", Path: "/debug/pprof/heap"}, true},
		{"another URL", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}}, Request{Verb: "get", Path: "/metrics/x"}, false},
		{"any URL", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"*"}}, Request{Verb: "get", Path: "/x"}, true},
		{"a URL rule allows no resource", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"*"}}, pods, false},
		{"a resource rule allows no URL", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"*"}}, Request{Verb: "get", Path: "/x"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ruleAllows(c.rule, c.req); got != c.want {
				t.Fatalf("ruleAllows(%+v, %s) = %v, want %v", c.rule, c.req, got, c.want)
			}
		})
	}
}

func manifest(t *testing.T, perms ...Permission) *Manifest {
	t.Helper()
	m, err := Derive(perms, Options{ServiceAccount: saName})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCheckAllowsWhatTheRulesGrantAndListsTheRest(t *testing.T) {
	m := manifest(t,
		Permission{Group: "apps", Resource: "deployments", Verbs: []string{"list", "watch", "patch"}, Namespace: "ns"},
		Permission{Group: "coordination.k8s.io", Resource: "leases", Verbs: []string{"get", "update"}, Names: []string{"l"}, Namespace: "ns"},
		Permission{Resource: "configmaps", Verbs: []string{"list"}},
		Permission{URL: "/metrics", Verbs: []string{"get"}},
	)
	reqs := []Request{
		{Verb: "list", Group: "apps", Resource: "deployments", Namespace: "ns"},
		{Verb: "watch", Group: "apps", Resource: "deployments", Namespace: "ns"},
		{Verb: "get", Group: "coordination.k8s.io", Resource: "leases", Namespace: "ns", Name: "l"},
		{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "ns", Name: "l"},
		{Verb: "list", Resource: "configmaps", Namespace: "other"}, // the ClusterRole covers every namespace
		{Verb: "get", Path: "/apis"}, // discovery: every authenticated user
		{Verb: "get", Path: "/version"},
		{Verb: "create", Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"},
	}
	unused, err := Check(m, reqs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range unused {
		got = append(got, u.String())
	}
	want := []string{"ClusterRole app: get /metrics", "Role ns/app: patch deployments.apps"}
	if !slices.Equal(got, want) {
		t.Fatalf("unused = %q, want %q", got, want)
	}
}

func TestCheckDenies(t *testing.T) {
	m := manifest(t,
		Permission{Group: "apps", Resource: "deployments", Verbs: []string{"list", "watch"}, Namespace: "ns"},
		Permission{Group: "coordination.k8s.io", Resource: "leases", Verbs: []string{"get", "update"}, Names: []string{"l"}, Namespace: "ns"},
		Permission{URL: "/metrics", Verbs: []string{"get"}},
	)
	cases := []struct {
		name string
		req  Request
	}{
		{"a verb not granted", Request{Verb: "patch", Group: "apps", Resource: "deployments", Namespace: "ns", Name: "d"}},
		{"a Role outside its namespace", Request{Verb: "list", Group: "apps", Resource: "deployments", Namespace: "other"}},
		{"a Role for a list across namespaces", Request{Verb: "list", Group: "apps", Resource: "deployments"}},
		{"a subresource of a granted resource", Request{Verb: "list", Group: "apps", Resource: "deployments", Subresource: "status", Namespace: "ns"}},
		{"another object than the names", Request{Verb: "get", Group: "coordination.k8s.io", Resource: "leases", Namespace: "ns", Name: "m"}},
		{"a create of a resource granted by name only", Request{Verb: "create", Group: "coordination.k8s.io", Resource: "leases", Namespace: "ns"}},
		{"a URL not granted", Request{Verb: "get", Path: "/debug/pprof"}},
		{"a URL verb not granted", Request{Verb: "post", Path: "/metrics"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Check(m, []Request{c.req, c.req})
			var de *DeniedError
			if !errors.As(err, &de) || !errors.Is(err, ErrDenied) || len(de.Requests) != 1 || de.Requests[0] != c.req {
				t.Fatalf("Check(%s) = %v, want a DeniedError listing it once", c.req, err)
			}
		})
	}
}

func TestCheckFollowsBindings(t *testing.T) {
	rules := []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}}}
	get := func(ns string) Request { return Request{Verb: "get", Resource: "secrets", Namespace: ns, Name: "s"} }
	cases := []struct {
		name    string
		m       Manifest
		allowed []Request
		denied  []Request
	}{
		{
			name:   "an unbound ClusterRole grants nothing",
			m:      Manifest{ClusterRoles: []rbacv1.ClusterRole{{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Rules: rules}}},
			denied: []Request{get("a"), get("")},
		},
		{
			name: "a ClusterRole bound in a namespace grants it there only",
			m: Manifest{
				ClusterRoles: []rbacv1.ClusterRole{{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Rules: rules}},
				RoleBindings: []rbacv1.RoleBinding{{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "b"}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "c"}}},
			},
			allowed: []Request{get("a")},
			denied:  []Request{get("b"), get("")},
		},
		{
			name: "a Role bound from another namespace grants nothing",
			m: Manifest{
				Roles:        []rbacv1.Role{{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "r"}, Rules: rules}},
				RoleBindings: []rbacv1.RoleBinding{{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "b"}, RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "r"}}},
			},
			denied: []Request{get("a"), get("b")},
		},
		{
			name: "a ClusterRole's URLs through a RoleBinding grant nothing",
			m: Manifest{
				ClusterRoles: []rbacv1.ClusterRole{{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}}}}},
				RoleBindings: []rbacv1.RoleBinding{{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "b"}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "c"}}},
			},
			denied: []Request{{Verb: "get", Path: "/metrics"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, r := range c.allowed {
				if _, err := Check(&c.m, []Request{r}); err != nil {
					t.Errorf("%s: %v, want allowed", r, err)
				}
			}
			for _, r := range c.denied {
				if _, err := Check(&c.m, []Request{r}); !errors.Is(err, ErrDenied) {
					t.Errorf("%s: %v, want denied", r, err)
				}
			}
		})
	}
}
