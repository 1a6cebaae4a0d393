package dynamic

import (
	"context"
	"errors"
	"fmt"
	"iter"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// DefaultPageSize is the page size of All when AllOptions.List.Limit is 0.
const DefaultPageSize = 500

const maxRestarts = 5

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
	return func(yield func(*unstructured.Unstructured, error) bool) {
		lo := opts.List
		if lo.Continue != "" {
			yield(nil, invalid("All manages continue tokens; List.Continue must be empty"))
			return
		}
		if lo.Limit == 0 {
			lo.Limit = DefaultPageSize
		}
		first := lo
		seen := map[string]struct{}{}
		restarts := 0
		for {
			page, err := r.List(ctx, lo)
			if err != nil {
				if lo.Continue != "" && apierrors.IsResourceExpired(err) {
					if opts.Snapshot || restarts >= maxRestarts {
						yield(nil, fmt.Errorf("%w: %w", ErrSnapshotExpired, err))
						return
					}
					restarts++
					lo = first
					lo.ResourceVersion, lo.ResourceVersionMatch = "", ""
					continue
				}
				yield(nil, err)
				return
			}
			for i := range page.Items {
				u := &page.Items[i]
				key := u.GetNamespace() + "/" + u.GetName()
				if _, dup := seen[key]; dup {
					continue
				}
				seen[key] = struct{}{}
				if !yield(u, nil) {
					return
				}
			}
			if page.GetContinue() == "" {
				return
			}
			lo.Continue = page.GetContinue()
			lo.ResourceVersion, lo.ResourceVersionMatch = "", ""
		}
	}
}
