// Package apipath splits the path of a Kubernetes API request the way
// kube-apiserver does before it routes or authorizes it: the API prefix,
// group and version, a "watch" or "proxy" segment, the namespace, and the
// rest (resource, name, subresource). It is the one splitter of the
// module: the in-memory API server routes with it, and package rbac reads
// a request's authorization attributes with it.
package apipath

import "strings"

// Path is a resource path, split.
type Path struct {
	// Group is "" for the core group (/api), else the group of /apis.
	Group   string
	Version string
	// Watch and Proxy say the path had the "watch" or "proxy" segment
	// after the version (/apis/apps/v1/watch/…).
	Watch, Proxy bool
	// Namespace is the segment after "namespaces", as kube-apiserver's
	// authorization sees it: set both for a resource in a namespace
	// (/api/v1/namespaces/ns/pods) and for a namespace itself
	// (/api/v1/namespaces/ns, /api/v1/namespaces/ns/status).
	Namespace string
	// InNamespace is true when the namespace segment scopes a resource
	// below it (the first form above); then Parts starts after it.
	InNamespace bool
	// Parts are the remaining segments: resource, name, subresource, and
	// anything after. It is never empty.
	Parts []string
}

// namespaceSubresources are the subresources of a namespace: its path
// /namespaces/{name}/{sub} is the namespace's own, not a resource in it.
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// Split splits p (a URL path, without query). ok is false for a path that
// names no resource: discovery (/api, /apis/apps/v1), health, OpenAPI,
// anything outside /api and /apis, and a "watch" or "proxy" segment with
// nothing after it.
func Split(p string) (path Path, ok bool) {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		path.Version, parts = parts[1], parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		path.Group, path.Version, parts = parts[1], parts[2], parts[3:]
	default:
		return Path{}, false
	}
	switch parts[0] {
	case "watch":
		path.Watch = true
		parts = parts[1:]
	case "proxy":
		path.Proxy = true
		parts = parts[1:]
	}
	if len(parts) == 0 {
		return Path{}, false
	}
	if parts[0] == "namespaces" && len(parts) > 1 {
		path.Namespace = parts[1]
		if len(parts) > 2 && !namespaceSubresources[parts[2]] {
			path.InNamespace = true
			parts = parts[2:]
		}
	}
	path.Parts = parts
	return path, true
}
