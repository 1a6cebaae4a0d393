package rbac_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rbac"
	"github.com/kubego/kubego/testenv"
)

// Check allows and denies exactly what kube-apiserver's RBAC authorizer
// does: the same Manifest applied to the server, and each request asked
// of it as a SubjectAccessReview for the ServiceAccount.
func TestIntegrationCheckAgreesWithKubeAPIServer(t *testing.T) {
	cp := testenv.Shared(t)
	admin, err := client.NewForConfig(cp.Config(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ns := newNamespace(t, admin)
	sa := types.NamespacedName{Namespace: ns, Name: "agree"}
	m, err := rbac.Derive([]rbac.Permission{
		{Group: "apps", Resource: "deployments", Verbs: []string{"list", "watch"}, Namespace: ns},
		{Group: "apps", Resource: "deployments/status", Verbs: []string{"update"}, Namespace: ns},
		{Group: "*", Resource: "*/scale", Verbs: []string{"get"}, Namespace: ns},
		{Resource: "secrets", Verbs: []string{"get", "list"}, Names: []string{"s1"}, Namespace: ns},
		{Group: "batch", Resource: "*", Verbs: []string{"*"}, Namespace: ns},
		{Resource: "nodes", Verbs: []string{"get"}},
		{URL: "/metrics", Verbs: []string{"get"}},
		{URL: "/debug/*", Verbs: []string{"get"}},
	}, rbac.Options{ServiceAccount: sa, Name: "agree-" + ns})
	if err != nil {
		t.Fatal(err)
	}
	// A ClusterRole bound in the namespace only: its rules apply there.
	m.ClusterRoles = append(m.ClusterRoles, rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "agree-ns-" + ns},
		Rules: []rbacv1.PolicyRule{
			{Verbs: []string{"create"}, APIGroups: []string{""}, Resources: []string{"configmaps"}},
			{Verbs: []string{"get"}, NonResourceURLs: []string{"/only-cluster"}},
		},
	})
	m.RoleBindings = append(m.RoleBindings, rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "agree-ns"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "agree-ns-" + ns},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: sa.Name}},
	})
	apply(t, admin, m)

	other := ns + "-other"
	reqs := []rbac.Request{
		{Verb: "list", Group: "apps", Resource: "deployments", Namespace: ns},
		{Verb: "watch", Group: "apps", Resource: "deployments", Namespace: ns, Name: "d"},
		{Verb: "list", Group: "apps", Resource: "deployments"},
		{Verb: "list", Group: "apps", Resource: "deployments", Namespace: other},
		{Verb: "get", Group: "apps", Resource: "deployments", Namespace: ns, Name: "d"},
		{Verb: "update", Group: "apps", Resource: "deployments", Subresource: "status", Namespace: ns, Name: "d"},
		{Verb: "update", Group: "apps", Resource: "deployments", Namespace: ns, Name: "d"},
		{Verb: "get", Group: "apps", Resource: "deployments", Subresource: "scale", Namespace: ns, Name: "d"},
		{Verb: "get", Group: "apps", Resource: "replicasets", Subresource: "scale", Namespace: ns, Name: "r"},
		{Verb: "update", Group: "apps", Resource: "deployments", Subresource: "scale", Namespace: ns, Name: "d"},
		{Verb: "get", Resource: "secrets", Namespace: ns, Name: "s1"},
		{Verb: "get", Resource: "secrets", Namespace: ns, Name: "s2"},
		{Verb: "list", Resource: "secrets", Namespace: ns},
		{Verb: "list", Resource: "secrets", Namespace: ns, Name: "s1"},
		{Verb: "deletecollection", Group: "batch", Resource: "jobs", Namespace: ns},
		{Verb: "update", Group: "batch", Resource: "cronjobs", Subresource: "status", Namespace: ns, Name: "c"},
		{Verb: "get", Group: "batch", Resource: "jobs", Namespace: other, Name: "j"},
		{Verb: "get", Resource: "nodes", Name: "n"},
		{Verb: "list", Resource: "nodes"},
		{Verb: "create", Resource: "configmaps", Namespace: ns},
		{Verb: "create", Resource: "configmaps", Namespace: other},
		{Verb: "get", Path: "/metrics"},
		{Verb: "post", Path: "/metrics"},
		{Verb: "get", Path: "/debug/pprof/heap"},
		{Verb: "get", Path: "/only-cluster"},
		{Verb: "get", Path: "/apis/apps/v1"},
		{Verb: "get", Path: "/version"},
		{Verb: "get", Path: "/logs"},
		{Verb: "create", Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"},
	}
	reviews := client.Typed[*authorizationv1.SubjectAccessReview](admin)
	user := "system:serviceaccount:" + ns + ":" + sa.Name
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	// The authorizer sees new roles and bindings a moment after they are
	// written: ask until it agrees, and show the disagreements if it never
	// does.
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		var differ []string
		for _, r := range reqs {
			spec := authorizationv1.SubjectAccessReviewSpec{User: user, Groups: groups}
			if r.IsResource() {
				spec.ResourceAttributes = &authorizationv1.ResourceAttributes{Namespace: r.Namespace, Verb: r.Verb, Group: r.Group,
					Resource: r.Resource, Subresource: r.Subresource, Name: r.Name}
			} else {
				spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: r.Path, Verb: r.Verb}
			}
			got, err := reviews.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
			if err != nil {
				return err
			}
			_, err = rbac.Check(m, []rbac.Request{r})
			if checked := err == nil; checked != got.Status.Allowed {
				differ = append(differ, fmt.Sprintf("%s: kube-apiserver allowed=%v, Check allowed=%v", r, got.Status.Allowed, checked))
			}
		}
		if len(differ) > 0 {
			return fmt.Errorf("%d disagreements:\n%s", len(differ), strings.Join(differ, "\n"))
		}
		return nil
	})
}
