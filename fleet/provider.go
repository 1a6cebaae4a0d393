package fleet

import (
	"context"

	"github.com/kubego/kubego/rest"
)

// Set is what a Provider adds clusters to and removes them from; a
// manager.Manager is one. Its methods are safe for concurrent use and
// return errors wrapping ErrDuplicate (AddCluster of a name held),
// ErrUnknown (RemoveCluster of a name not held) or ErrInvalid.
type Set interface {
	// AddCluster builds a cluster from cfg under name and starts it (at
	// once if the set runs).
	AddCluster(name string, cfg *rest.Config) (*Cluster, error)
	// ReplaceCluster stops the cluster held under name, if any, and adds
	// one built from cfg in its place.
	ReplaceCluster(name string, cfg *rest.Config) (*Cluster, error)
	// RemoveCluster stops the cluster held under name and forgets it; it
	// returns once the cluster's informers have stopped.
	RemoveCluster(name string) error
}

// Provider finds clusters and keeps a Set up to date with them: Run adds
// the clusters it finds, replaces and removes them as they change, and
// returns when ctx is done (nil) or when it cannot go on (an error, which
// stops a Manager). It leaves the clusters it added in the Set when it
// returns: their owner stops them.
type Provider interface {
	Run(ctx context.Context, set Set) error
}
