package dynamic

import (
	"context"
	"errors"
	"fmt"
	"github.com/kubego/kubego/internal/paging"
	"iter"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// DefaultPageSize is the page size of All when AllOptions.List.Limit is 0.
const DefaultPageSize = 500

// AllOptions configure All; see client.AllOptions, which they mirror.
type AllOptions struct {
	// List selects objects and sets the page size (Limit, 0 for
	// DefaultPageSize). Continue must be empty.
	List metav1.ListOptions
	// Snapshot makes an expired continue token end the iteration with an
	// error wrapping ErrSnapshotExpired instead of restarting.
	Snapshot bool
}

// ErrSnapshotExpired is wrapped (with the server's 410 error) by the error
// that ends a Snapshot iteration whose continue token expired.
var ErrSnapshotExpired = errors.New("dynamic: list snapshot expired before all pages were read")

// All iterates over every object matching opts page by page, following
// continue tokens, with at most one page in memory. It yields (object,
// nil) pairs and at most one (nil, err) pair, which ends it. When a
// continue token expires it restarts from the current state and skips
// objects already yielded (by namespace and name), unless opts.Snapshot.
func (r *Resource) All(ctx context.Context, opts AllOptions) iter.Seq2[*unstructured.Unstructured, error] {
	return paging.All(ctx, paging.Walk[*unstructured.Unstructured]{
		List:     opts.List,
		Snapshot: opts.Snapshot,
		PageSize: DefaultPageSize,
		Fetch: func(ctx context.Context, lo metav1.ListOptions) ([]*unstructured.Unstructured, string, error) {
			page, err := r.List(ctx, lo)
			if err != nil {
				return nil, "", err
			}
			items := make([]*unstructured.Unstructured, len(page.Items))
			for i := range page.Items {
				items[i] = &page.Items[i]
			}
			return items, page.GetContinue(), nil
		},
		Expired: func(_ context.Context, err error, _ int) error {
			return fmt.Errorf("%w: %w", ErrSnapshotExpired, err)
		},
		Invalid: func(msg string) error { return invalid("%s", msg) },
	})
}
