package discovery

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Snapshot is what the server serves, as discovered at one moment. It is
// shared by everyone who asks the same Client and must not be modified.
type Snapshot struct {
	// Groups in the server's order of preference, the core group ("")
	// first.
	Groups []Group `json:"groups"`
	// Fetched is when the snapshot was taken from the server.
	Fetched time.Time `json:"fetched"`
	// Aggregated is true when it came from aggregated discovery (one
	// request per root) rather than per-group requests.
	Aggregated bool `json:"aggregated"`
}

// Group is one API group.
type Group struct {
	// Name is the group name, "" for the core group.
	Name string `json:"name"`
	// Versions in order of preference; the first is the preferred one.
	Versions []Version `json:"versions"`
}

// Version is one version of a group with its resources.
type Version struct {
	Version   string     `json:"version"`
	Resources []Resource `json:"resources"`
}

// Resource is one resource of a group/version.
type Resource struct {
	// Name is the plural resource name ("deployments").
	Name string `json:"name"`
	// SingularName is the singular ("deployment").
	SingularName string `json:"singularName,omitempty"`
	// Kind is the kind of the resource's objects.
	Kind       schema.GroupVersionKind `json:"kind"`
	Namespaced bool                    `json:"namespaced"`
	Verbs      []string                `json:"verbs,omitempty"`
	ShortNames []string                `json:"shortNames,omitempty"`
	Categories []string                `json:"categories,omitempty"`
	// Subresources are the names of the subresources ("status", "scale").
	Subresources []string `json:"subresources,omitempty"`
}

// Preferred returns the preferred version of the group, or nil if the
// group serves no version.
func (g *Group) Preferred() *Version {
	if len(g.Versions) == 0 {
		return nil
	}
	return &g.Versions[0]
}

// Group returns the group called name, or nil.
func (s *Snapshot) Group(name string) *Group {
	for i := range s.Groups {
		if s.Groups[i].Name == name {
			return &s.Groups[i]
		}
	}
	return nil
}

// Resources returns the resources of gv, or nil when gv is not served.
func (s *Snapshot) Resources(gv schema.GroupVersion) []Resource {
	g := s.Group(gv.Group)
	if g == nil {
		return nil
	}
	for _, v := range g.Versions {
		if v.Version == gv.Version {
			return v.Resources
		}
	}
	return nil
}
