package rbac

import (
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/fields"

	"github.com/kubego/kubego/internal/apipath"
)

// Request is one API request as kube-apiserver's authorizer sees it. A
// resource request has a Resource; a non-resource request (discovery,
// /version, /healthz) has only a Verb and a Path. It is comparable.
type Request struct {
	// Verb is the authorization verb: get, list, watch, create, update,
	// patch (server-side apply included), delete, deletecollection, proxy,
	// or for a non-resource request the lowercased HTTP method.
	Verb string
	// Group ("" for the core group), Version, Resource and Subresource
	// ("status", "scale", "token"…) of a resource request.
	Group, Version, Resource, Subresource string
	// Namespace of a namespaced request, and of a namespace's own path;
	// "" for a cluster-scoped object or a list across all namespaces.
	Namespace string
	// Name of the object; for a list or watch, the name its field
	// selector metadata.name=… fixes, as the authorizer reads it.
	Name string
	// Path is the URL path of a non-resource request.
	Path string
}

// RequestOf returns the authorization attributes of r, read as
// kube-apiserver reads them: the path (group, version, namespace,
// resource, name, subresource, a "watch" or "proxy" segment), the method,
// and for a get without a name, the watch parameter (list or watch) and a
// field selector on metadata.name. A path that names no resource is a
// non-resource request. It never fails: every request has attributes.
func RequestOf(r *http.Request) Request {
	p, ok := apipath.Split(r.URL.Path)
	if !ok {
		return Request{Verb: strings.ToLower(r.Method), Path: r.URL.Path}
	}
	req := Request{Group: p.Group, Version: p.Version, Namespace: p.Namespace}
	switch {
	case p.Watch:
		req.Verb = "watch"
	case p.Proxy:
		req.Verb = "proxy"
	default:
		req.Verb = methodVerbs[r.Method]
	}
	parts := p.Parts
	req.Resource = parts[0]
	if len(parts) > 1 {
		req.Name = parts[1]
	}
	if len(parts) > 2 && !p.Proxy {
		req.Subresource = parts[2]
	}
	if req.Name == "" && req.Verb == "get" {
		q := r.URL.Query()
		req.Verb = "list"
		if w, ok := q["watch"]; ok && len(w) > 0 && w[0] != "0" && !strings.EqualFold(w[0], "false") {
			req.Verb = "watch"
		}
		if fs := q.Get("fieldSelector"); fs != "" {
			if sel, err := fields.ParseSelector(fs); err == nil {
				if name, ok := sel.RequiresExactMatch("metadata.name"); ok && validSegment(name) {
					req.Name = name
				}
			}
		}
	}
	if req.Name == "" && req.Verb == "delete" {
		req.Verb = "deletecollection"
	}
	return req
}

// methodVerbs are the verbs of the HTTP methods on a resource path;
// another method has no verb ("").
var methodVerbs = map[string]string{
	http.MethodGet:    "get",
	http.MethodHead:   "get",
	http.MethodPost:   "create",
	http.MethodPut:    "update",
	http.MethodPatch:  "patch",
	http.MethodDelete: "delete",
}

// validSegment reports whether name can be a path segment: what the
// authorizer requires of a name taken from a field selector.
func validSegment(name string) bool {
	return name != "." && name != ".." && !strings.ContainsAny(name, "/%")
}

// IsResource reports whether r is a resource request (else its Path
// names a non-resource URL).
func (r Request) IsResource() bool { return r.Resource != "" }

// String is r in one line: "list deployments.apps in namespace ns",
// "update leases.coordination.k8s.io/l in namespace ns", "get /version".
func (r Request) String() string {
	if !r.IsResource() {
		return r.Verb + " " + r.Path
	}
	var b strings.Builder
	b.WriteString(r.Verb)
	b.WriteByte(' ')
	b.WriteString(resourceName(r.Group, r.Resource))
	if r.Subresource != "" {
		b.WriteString("/" + r.Subresource)
	}
	if r.Name != "" {
		b.WriteString(" " + r.Name)
	}
	if r.Namespace != "" {
		b.WriteString(" in namespace " + r.Namespace)
	}
	return b.String()
}

// resourceName is resource.group, or resource alone for the core group.
func resourceName(group, resource string) string {
	if group == "" {
		return resource
	}
	return resource + "." + group
}
