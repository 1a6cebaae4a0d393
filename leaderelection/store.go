package leaderelection

import (
	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
)

// LeaseStore reads and writes the Lease the candidates compete for. NewStore
// returns the one backed by the API server; tests use an in-memory one.
//
// Errors must be recognisable by k8s.io/apimachinery/pkg/api/errors:
// IsNotFound when the lease does not exist (Get, Update), IsAlreadyExists
// when Create finds it exists, IsConflict when Update's resourceVersion is
// stale. Any other error is treated as transient and retried. Calls must
// return promptly once ctx is done: the elector bounds each call by the end
// of the current term.
//
// Implementations must be safe for concurrent use. The elector never
// modifies a lease it passed in or got back.
type LeaseStore interface {
	// Get returns the lease called lock.
	Get(ctx context.Context, lock types.NamespacedName) (*coordinationv1.Lease, error)
	// Create creates lease and returns what was stored.
	Create(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error)
	// Update replaces lease if its resourceVersion is still current and
	// returns what was stored.
	Update(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error)
}

// NewStore returns the LeaseStore that works on coordination.k8s.io/v1
// Leases through c.
func NewStore(c *client.Client) LeaseStore {
	return clientStore{r: client.Typed[*coordinationv1.Lease](c)}
}

type clientStore struct {
	r *client.Resource[*coordinationv1.Lease]
}

func (s clientStore) Get(ctx context.Context, lock types.NamespacedName) (*coordinationv1.Lease, error) {
	return s.r.Namespace(lock.Namespace).Get(ctx, lock.Name, metav1.GetOptions{})
}

func (s clientStore) Create(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	return s.r.Namespace(lease.Namespace).Create(ctx, lease, metav1.CreateOptions{})
}

func (s clientStore) Update(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	return s.r.Namespace(lease.Namespace).Update(ctx, lease, metav1.UpdateOptions{})
}
