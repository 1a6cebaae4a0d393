package rbac

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Permission is one thing a program may do: verbs on a resource (in a
// namespace, or everywhere) or on a non-resource URL. Derive turns a set
// of them into Roles and ClusterRoles.
type Permission struct {
	// Group is the API group ("" for the core group, "*" for all).
	Group string
	// Resource is the resource ("deployments"), with "/subresource" for a
	// subresource ("deployments/status", "*/scale"), or "*" for all. Empty
	// for a non-resource URL.
	Resource string
	// Verbs are the authorization verbs: get, list, watch, create,
	// update, patch (server-side apply too), delete, deletecollection, or
	// "*". At least one.
	Verbs []string
	// Namespace limits the permission to one namespace (a Role there);
	// "" means every namespace and cluster-scoped resources (a
	// ClusterRole).
	Namespace string
	// Names limits the permission to these objects (resourceNames).
	// Empty means all. The authorizer knows no name for a create (Derive
	// refuses create with Names), nor for a list or watch without a
	// metadata.name field selector: a permission with Names does not
	// allow those.
	Names []string
	// URL is a non-resource URL ("/metrics", "/debug/*"), instead of a
	// Group and Resource; it needs an empty Namespace.
	URL string
}

// String is p in one line, as "get,update leases.coordination.k8s.io
// [l] in namespace ns".
func (p Permission) String() string {
	var b strings.Builder
	b.WriteString(strings.Join(p.Verbs, ","))
	b.WriteByte(' ')
	if p.URL != "" {
		b.WriteString(p.URL)
		return b.String()
	}
	b.WriteString(resourceName(p.Group, p.Resource))
	if len(p.Names) > 0 {
		b.WriteString(" " + fmt.Sprint(p.Names))
	}
	if p.Namespace != "" {
		b.WriteString(" in namespace " + p.Namespace)
	}
	return b.String()
}

// validate returns why p cannot be a rule, or "".
func (p Permission) validate() string {
	switch {
	case len(p.Verbs) == 0:
		return "no verbs"
	case slices.Contains(p.Verbs, ""):
		return "an empty verb"
	case p.URL != "" && (p.Resource != "" || p.Group != "" || len(p.Names) > 0):
		return "both a URL and a resource"
	case p.URL != "" && p.Namespace != "":
		return "a non-resource URL in a namespace (only a ClusterRole grants URLs)"
	case p.URL != "" && !strings.HasPrefix(p.URL, "/") && p.URL != "*":
		return "a URL that does not start with /"
	case p.URL == "" && p.Resource == "":
		return "neither a resource nor a URL"
	case slices.Contains(p.Names, ""):
		return "an empty name"
	case len(p.Names) > 0 && slices.Contains(p.Verbs, "create"):
		return "create limited to names (a create has no name the authorizer could match: give it without Names)"
	}
	return ""
}

// Observed returns the permissions that allow exactly the resource and
// non-resource requests given (typically [Recorder.Requests] of a test
// run), beyond what kube-apiserver grants every authenticated user
// (discovery, /version, /healthz and the like): one per resource (with
// its subresource) and namespace, with the verbs used, without names.
// Rules derived from a program's declarations can be compared with them,
// or completed by them.
func Observed(reqs []Request) []Permission {
	type key struct{ group, resource, namespace, url string }
	verbs := map[key]map[string]bool{}
	for _, r := range reqs {
		if authenticatedAllows(r) {
			continue
		}
		var k key
		if r.IsResource() {
			k = key{group: r.Group, resource: combined(r.Resource, r.Subresource), namespace: r.Namespace}
		} else {
			k = key{url: r.Path}
		}
		if verbs[k] == nil {
			verbs[k] = map[string]bool{}
		}
		verbs[k][r.Verb] = true
	}
	out := make([]Permission, 0, len(verbs))
	for k, vs := range verbs {
		out = append(out, Permission{Group: k.group, Resource: k.resource, Namespace: k.namespace, URL: k.url, Verbs: setSorted(vs)})
	}
	slices.SortFunc(out, func(a, b Permission) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.URL, b.URL), cmp.Compare(a.Group, b.Group), cmp.Compare(a.Resource, b.Resource))
	})
	return out
}

// combined is resource or resource/subresource, as rules name it.
func combined(resource, sub string) string {
	if sub == "" {
		return resource
	}
	return resource + "/" + sub
}

func setSorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}
