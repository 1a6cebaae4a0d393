package client

import (
	"context"
	"errors"
	"fmt"
	"github.com/kubego/kubego/internal/paging"
	"iter"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// DefaultPageSize is the page size All uses when AllOptions.List.Limit is 0.
const DefaultPageSize = 500

// AllOptions configure All.
type AllOptions struct {
	// List selects the objects (label and field selectors) and sets the
	// page size (Limit; 0 means DefaultPageSize) and the resourceVersion
	// semantics of the first page. Continue must be empty.
	List metav1.ListOptions
	// Snapshot asks for one consistent snapshot: when a continue token
	// expires (410 Gone) All ends with an *ExpiredError instead of
	// restarting the list.
	Snapshot bool
}

// ErrSnapshotExpired is wrapped by *ExpiredError.
var ErrSnapshotExpired = errors.New("client: list snapshot expired before all pages were read")

// ExpiredError ends an All iteration that asked for a consistent snapshot
// when the server no longer had it. It wraps ErrSnapshotExpired and the
// server's 410 error (apierrors.IsResourceExpired).
type ExpiredError struct {
	Resource schema.GroupVersionResource
	// Yielded is how many objects were yielded before the snapshot expired.
	Yielded int
	Err     error
}

func (e *ExpiredError) Error() string {
	return fmt.Sprintf("client: list of %s expired after %d objects: %v", e.Resource, e.Yielded, e.Err)
}

// Unwrap returns ErrSnapshotExpired and the server's error.
func (e *ExpiredError) Unwrap() []error { return []error{ErrSnapshotExpired, e.Err} }

// All iterates over every object matching opts, page by page, following
// continue tokens; at most one page is held in memory. The sequence yields
// (object, nil) pairs in server order, and at most one (zero, err) pair,
// which ends it.
//
// When a continue token expires (410 Gone, because the snapshot was
// compacted) and opts.Snapshot is false, All starts a fresh list at the
// current state and skips objects it has already yielded (by namespace
// and name), so each object is yielded at most once, but the sequence as
// a whole is no longer one snapshot; it restarts a bounded number of times
// and then ends with the server's error. With opts.Snapshot it yields an
// *ExpiredError instead. An item of another Go type than T (a server
// answering with another kind) ends the sequence with an
// *informer.TypeError rather than being left out.
func (r *Resource[T]) All(ctx context.Context, opts AllOptions) iter.Seq2[T, error] {
	return paging.All(ctx, paging.Walk[T]{
		List:     opts.List,
		Snapshot: opts.Snapshot,
		PageSize: DefaultPageSize,
		Fetch: func(ctx context.Context, lo metav1.ListOptions) ([]T, string, error) {
			page, lm, err := listAs[T](ctx, r.k, lo)
			return page, lm.Continue, err
		},
		Expired: func(ctx context.Context, err error, yielded int) error {
			m, _ := r.k.mapping(ctx)
			return &ExpiredError{Resource: m.Resource, Yielded: yielded, Err: err}
		},
		Invalid: func(msg string) error { return invalid("%s", msg) },
	})
}
