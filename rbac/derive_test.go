package rbac

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/types"
)

var saName = types.NamespacedName{Namespace: "sys", Name: "app"}

func TestDeriveMergesPermissionsIntoRules(t *testing.T) {
	m := manifest(t,
		Permission{Group: "apps", Resource: "deployments", Verbs: []string{"watch", "list"}},
		Permission{Group: "apps", Resource: "deployments", Verbs: []string{"list", "patch"}},
		Permission{Group: "apps", Resource: "replicasets", Verbs: []string{"list", "watch", "patch"}},
		Permission{Group: "apps", Resource: "deployments/status", Verbs: []string{"update"}},
		Permission{URL: "/metrics", Verbs: []string{"get"}},
		Permission{Group: "coordination.k8s.io", Resource: "leases", Verbs: []string{"update", "get"}, Names: []string{"l"}, Namespace: "sys"},
		Permission{Group: "coordination.k8s.io", Resource: "leases", Verbs: []string{"create"}, Namespace: "sys"},
	)
	wantCluster := []rbacv1.PolicyRule{
		{APIGroups: []string{"apps"}, Resources: []string{"deployments", "replicasets"}, Verbs: []string{"list", "watch", "patch"}},
		{APIGroups: []string{"apps"}, Resources: []string{"deployments/status"}, Verbs: []string{"update"}},
		{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}},
	}
	wantRole := []rbacv1.PolicyRule{
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{"l"}, Verbs: []string{"get", "update"}},
	}
	if len(m.ClusterRoles) != 1 || len(m.Roles) != 1 || len(m.ClusterRoleBindings) != 1 || len(m.RoleBindings) != 1 {
		t.Fatalf("manifest: %+v", m)
	}
	if d := cmp.Diff(wantCluster, m.ClusterRoles[0].Rules); d != "" {
		t.Errorf("ClusterRole rules (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantRole, m.Roles[0].Rules); d != "" {
		t.Errorf("Role rules (-want +got):\n%s", d)
	}
	rb := m.RoleBindings[0]
	if rb.Namespace != "sys" || rb.RoleRef.Kind != "Role" || rb.RoleRef.Name != "app" || rb.Subjects[0].Kind != "ServiceAccount" || rb.Subjects[0].Namespace != "sys" {
		t.Errorf("RoleBinding: %+v", rb)
	}
	y, err := m.YAML()
	if err != nil {
		t.Fatal(err)
	}
	if s := string(y); strings.Count(s, "---\n") != 3 || !strings.Contains(s, "kind: ClusterRoleBinding") || !strings.HasPrefix(s, "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n") {
		t.Errorf("YAML:\n%s", s)
	}
}

func TestDeriveRefuses(t *testing.T) {
	cases := []struct {
		name  string
		perms []Permission
		opts  Options
	}{
		{"no service account", nil, Options{}},
		{"no verbs", []Permission{{Resource: "pods"}}, Options{ServiceAccount: saName}},
		{"an empty verb", []Permission{{Resource: "pods", Verbs: []string{""}}}, Options{ServiceAccount: saName}},
		{"neither resource nor URL", []Permission{{Verbs: []string{"get"}}}, Options{ServiceAccount: saName}},
		{"a URL and a resource", []Permission{{Resource: "pods", URL: "/x", Verbs: []string{"get"}}}, Options{ServiceAccount: saName}},
		{"a URL in a namespace", []Permission{{URL: "/x", Namespace: "a", Verbs: []string{"get"}}}, Options{ServiceAccount: saName}},
		{"a relative URL", []Permission{{URL: "x", Verbs: []string{"get"}}}, Options{ServiceAccount: saName}},
		{"an empty name", []Permission{{Resource: "pods", Names: []string{""}, Verbs: []string{"get"}}}, Options{ServiceAccount: saName}},
		{"a create limited to names", []Permission{{Resource: "pods", Names: []string{"p"}, Verbs: []string{"get", "create"}}}, Options{ServiceAccount: saName}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Derive(c.perms, c.opts)
			var pe *PermissionError
			var oe *OptionsError
			if !errors.Is(err, ErrInvalid) || (!errors.As(err, &pe) && !errors.As(err, &oe)) {
				t.Fatalf("Derive: %v, want a typed error wrapping ErrInvalid", err)
			}
		})
	}
}

func TestObservedAllowsExactlyTheRequests(t *testing.T) {
	reqs := []Request{
		{Verb: "list", Group: "apps", Resource: "deployments", Namespace: "ns"},
		{Verb: "patch", Group: "apps", Resource: "deployments", Namespace: "ns", Name: "d"},
		{Verb: "update", Group: "apps", Resource: "deployments", Subresource: "status", Namespace: "ns", Name: "d"},
		{Verb: "get", Resource: "nodes", Name: "n"},
		{Verb: "get", Path: "/metrics"},
		{Verb: "get", Path: "/apis/apps/v1"}, // granted to everyone: not in the result
	}
	perms := Observed(reqs)
	if len(perms) != 4 {
		t.Fatalf("Observed = %v, want 4 permissions", perms)
	}
	unused, err := Check(manifest(t, perms...), reqs)
	if err != nil || len(unused) != 0 {
		t.Fatalf("Check of the observed rules: unused %v, %v", unused, err)
	}
}
