package rbac

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// Unused is one verb of one rule on one resource (or URL) that no request
// used: a permission the program was granted and did not need in the run.
type Unused struct {
	// Role names the role: "ClusterRole name" or "Role namespace/name".
	Role string
	// Verb, Group and Resource (or URL) are the unused part of the rule;
	// Names are the rule's resourceNames.
	Verb, Group, Resource string
	Names                 []string
	URL                   string
}

// String is u in one line: "ClusterRole c: watch configmaps".
func (u Unused) String() string {
	what := u.URL
	if what == "" {
		what = resourceName(u.Group, u.Resource)
		if len(u.Names) > 0 {
			what += " " + fmt.Sprint(u.Names)
		}
	}
	return u.Role + ": " + u.Verb + " " + what
}

// Check evaluates every request against the Manifest's roles as
// kube-apiserver's RBAC authorizer does: through the bindings (a
// ClusterRoleBinding grants its ClusterRole everywhere, a RoleBinding its
// Role or ClusterRole in the binding's namespace only, and non-resource
// URLs only through a ClusterRoleBinding), matching verbs, API groups,
// resources with their subresource ("pods/status", "*/scale"),
// resourceNames and non-resource URLs (a trailing "*" is a prefix), "*"
// matching anything. The bindings' subjects are not read: every binding
// is taken to be the program's. What kube-apiserver grants every
// authenticated user (discovery, /version, /healthz, self subject
// reviews) is allowed too.
//
// It returns every rule part (verb × group × resource, or verb × URL, of
// each rule of each role, bound or not) that allowed none of the
// requests, and a *DeniedError (wrapping [ErrDenied]) listing the
// requests nothing allows, or nil when all are allowed.
func Check(m *Manifest, reqs []Request) ([]Unused, error) {
	type atom struct {
		role, rule                 int
		verb, group, resource, url string
	}
	type role struct {
		name  string
		rules []rbacv1.PolicyRule
	}
	var roles []role
	clusterRole := map[string]int{}
	nsRole := map[[2]string]int{}
	for _, r := range m.ClusterRoles {
		clusterRole[r.Name] = len(roles)
		roles = append(roles, role{name: "ClusterRole " + r.Name, rules: r.Rules})
	}
	for _, r := range m.Roles {
		nsRole[[2]string{r.Namespace, r.Name}] = len(roles)
		roles = append(roles, role{name: "Role " + r.Namespace + "/" + r.Name, rules: r.Rules})
	}
	// A grant is a role that applies in a namespace ("" everywhere).
	type grant struct {
		role int
		ns   string
	}
	var grants []grant
	for _, b := range m.ClusterRoleBindings {
		if i, ok := clusterRole[b.RoleRef.Name]; ok && b.RoleRef.Kind == "ClusterRole" {
			grants = append(grants, grant{role: i})
		}
	}
	for _, b := range m.RoleBindings {
		var i int
		var ok bool
		switch b.RoleRef.Kind {
		case "Role":
			i, ok = nsRole[[2]string{b.Namespace, b.RoleRef.Name}]
		case "ClusterRole":
			i, ok = clusterRole[b.RoleRef.Name]
		}
		if ok && b.Namespace != "" {
			grants = append(grants, grant{role: i, ns: b.Namespace})
		}
	}

	used := map[atom]bool{}
	var denied []Request
	for _, req := range reqs {
		allowed := authenticatedAllows(req)
		for _, g := range grants {
			if g.ns != "" && (g.ns != req.Namespace || !req.IsResource()) {
				continue
			}
			for ri, rule := range roles[g.role].rules {
				if !ruleAllows(rule, req) {
					continue
				}
				allowed = true
				for _, v := range rule.Verbs {
					if v != "*" && v != req.Verb {
						continue
					}
					if !req.IsResource() {
						for _, u := range rule.NonResourceURLs {
							if urlMatches(u, req.Path) {
								used[atom{role: g.role, rule: ri, verb: v, url: u}] = true
							}
						}
						continue
					}
					for _, gr := range rule.APIGroups {
						if gr != "*" && gr != req.Group {
							continue
						}
						for _, res := range rule.Resources {
							if resourceMatches(res, req.Resource, req.Subresource) {
								used[atom{role: g.role, rule: ri, verb: v, group: gr, resource: res}] = true
							}
						}
					}
				}
			}
		}
		if !allowed {
			denied = append(denied, req)
		}
	}

	var unused []Unused
	for i, r := range roles {
		for ri, rule := range r.rules {
			for _, v := range rule.Verbs {
				for _, gr := range rule.APIGroups {
					for _, res := range rule.Resources {
						if !used[atom{role: i, rule: ri, verb: v, group: gr, resource: res}] {
							unused = append(unused, Unused{Role: r.name, Verb: v, Group: gr, Resource: res, Names: rule.ResourceNames})
						}
					}
				}
				for _, u := range rule.NonResourceURLs {
					if !used[atom{role: i, rule: ri, verb: v, url: u}] {
						unused = append(unused, Unused{Role: r.name, Verb: v, URL: u})
					}
				}
			}
		}
	}
	if len(denied) > 0 {
		denied = slices.Clone(denied)
		sortRequests(denied)
		denied = slices.Compact(denied)
		return unused, &DeniedError{Requests: denied}
	}
	return unused, nil
}

// ruleAllows reports whether rule allows req, as the RBAC authorizer
// decides it.
func ruleAllows(rule rbacv1.PolicyRule, req Request) bool {
	if !slices.Contains(rule.Verbs, "*") && !slices.Contains(rule.Verbs, req.Verb) {
		return false
	}
	if !req.IsResource() {
		return slices.ContainsFunc(rule.NonResourceURLs, func(u string) bool { return urlMatches(u, req.Path) })
	}
	if !slices.Contains(rule.APIGroups, "*") && !slices.Contains(rule.APIGroups, req.Group) {
		return false
	}
	if !slices.ContainsFunc(rule.Resources, func(r string) bool { return resourceMatches(r, req.Resource, req.Subresource) }) {
		return false
	}
	return len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, req.Name)
}

// resourceMatches reports whether a rule's resource entry covers resource
// with subresource sub: "*" covers all, "pods/status" only that
// subresource, "*/status" the status of every resource.
func resourceMatches(entry, resource, sub string) bool {
	switch {
	case entry == "*", entry == combined(resource, sub):
		return true
	case sub != "":
		return entry == "*/"+sub
	}
	return false
}

// urlMatches reports whether a rule's non-resource URL covers path: "*"
// covers all, "/debug/*" every path with that prefix.
func urlMatches(entry, path string) bool {
	if entry == "*" || entry == path {
		return true
	}
	prefix, ok := strings.CutSuffix(entry, "*")
	return ok && strings.HasPrefix(path, prefix)
}

// authenticated are the rules kube-apiserver's default roles grant every
// authenticated user (system:discovery, system:basic-user,
// system:public-info-viewer).
var authenticated = []rbacv1.PolicyRule{
	{Verbs: []string{"get"}, NonResourceURLs: []string{"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"}},
	{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
	{Verbs: []string{"create"}, APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"selfsubjectreviews"}},
}

func authenticatedAllows(req Request) bool {
	return slices.ContainsFunc(authenticated, func(r rbacv1.PolicyRule) bool { return ruleAllows(r, req) })
}
