package webhookconfig

import "github.com/kubego/kubego/rbac"

// Permissions are the requests Certificates makes, for
// manager.Manager.Permissions: get, create and update of its CA Secret in
// its namespace (get and update by name; the authorizer knows no name
// for a create).
func (p *Certificates) Permissions() []rbac.Permission {
	return []rbac.Permission{
		{Resource: "secrets", Verbs: []string{"get", "update"}, Namespace: p.opts.Namespace, Names: []string{p.opts.Secret}},
		{Resource: "secrets", Verbs: []string{"create"}, Namespace: p.opts.Namespace},
	}
}

// Permissions are the requests a BundleUpdater makes, for
// manager.Manager.Permissions: get and patch of each object it keeps, by
// name.
func (u *BundleUpdater) Permissions() []rbac.Permission {
	var out []rbac.Permission
	for _, o := range []struct {
		group, resource string
		names           []string
	}{
		{"admissionregistration.k8s.io", "mutatingwebhookconfigurations", u.opts.Mutating},
		{"admissionregistration.k8s.io", "validatingwebhookconfigurations", u.opts.Validating},
		{"apiextensions.k8s.io", "customresourcedefinitions", u.opts.CRDs},
	} {
		if len(o.names) > 0 {
			out = append(out, rbac.Permission{Group: o.group, Resource: o.resource, Verbs: []string{"get", "patch"}, Names: o.names})
		}
	}
	return out
}
