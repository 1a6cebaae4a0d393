package discovery

import "k8s.io/apimachinery/pkg/runtime/schema"

// Mapping ties a kind to the resource that serves it.
type Mapping struct {
	// Resource is the group/version/resource, e.g. apps/v1 deployments.
	Resource schema.GroupVersionResource
	// Kind is the group/version/kind of the objects, e.g. apps/v1 Deployment.
	Kind schema.GroupVersionKind
	// Namespaced is true for namespaced resources, false for cluster-scoped.
	Namespaced bool
}
