package leaderelection

import (
	"context"
	"errors"
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

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

// LeaseWatcher is a LeaseStore that also reports changes of the lease as
// they happen. A candidate whose store is one reads the lease as soon as
// it changes while it does not lead, instead of at its next RetryPeriod:
// a lease released by a leader that stops is taken over at once, and a
// renewal is observed when it is written, so a dead leader's lease is
// taken over LeaseDuration after its last renewal rather than up to one
// RetryPeriod later. The watch only decides when the candidate reads:
// every decision is still taken on a read (Get) of the lease and timed on
// the candidate's own clock, so the clock assumptions of the package are
// unchanged, and a watch that fails or lags only brings back the reads
// every RetryPeriod. NewStore's store is one.
type LeaseWatcher interface {
	LeaseStore
	// WatchLease calls changed each time the lease called lock may have
	// changed (created, written, deleted; also once when the watch begins
	// and finds the lease), until ctx ends or the watch ends, and then
	// returns: nil once ctx is done, else why the watch ended. changed
	// returns at once; it is never called after WatchLease returned.
	WatchLease(ctx context.Context, lock types.NamespacedName, changed func()) error
}

// errWatchEnded reports a lease watch that the server ended.
var errWatchEnded = errors.New("leaderelection: lease watch ended")

// NewStore returns the LeaseStore that works on coordination.k8s.io/v1
// Leases through c. It is a LeaseWatcher: it watches the one lease by a
// field selector on its name.
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

func (s clientStore) WatchLease(ctx context.Context, lock types.NamespacedName, changed func()) error {
	w, err := s.r.Namespace(lock.Namespace).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + lock.Name})
	if err != nil {
		return err
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		switch ev.Type {
		case watch.Added, watch.Modified, watch.Deleted:
			changed()
		case watch.Error:
			return fmt.Errorf("%w: %v", errWatchEnded, apierrors.FromObject(ev.Object))
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	if err := w.Err(); err != nil {
		return err
	}
	return errWatchEnded
}

func (s clientStore) Update(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	return s.r.Namespace(lease.Namespace).Update(ctx, lease, metav1.UpdateOptions{})
}
