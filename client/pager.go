package client

import (
	"context"
	"errors"
	"fmt"
	"iter"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// DefaultPageSize is the page size All uses when AllOptions.List.Limit is 0.
const DefaultPageSize = 500

// maxRestarts bounds how often All restarts a list whose continue token
// expired before giving up with the server's error.
const maxRestarts = 5

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
// a whole is no longer one snapshot. With opts.Snapshot it yields an
// *ExpiredError instead.
func (r *Resource[T]) All(ctx context.Context, opts AllOptions) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		lo := opts.List
		if lo.Continue != "" {
			yield(zero, invalid("All manages continue tokens; List.Continue must be empty"))
			return
		}
		if lo.Limit == 0 {
			lo.Limit = DefaultPageSize
		}
		first := lo
		seen := map[string]struct{}{}
		restarts, yielded, stop := 0, 0, false
		for {
			var page []T
			lm, err := r.k.list(ctx, &lo, func(o runtime.Object) {
				if t, ok := o.(T); ok {
					page = append(page, t)
				}
			})
			if err != nil {
				if lo.Continue != "" && apierrors.IsResourceExpired(err) {
					if opts.Snapshot || restarts >= maxRestarts {
						m, _ := r.k.mapping(ctx)
						yield(zero, &ExpiredError{Resource: m.Resource, Yielded: yielded, Err: err})
						return
					}
					restarts++
					lo = first
					lo.ResourceVersion, lo.ResourceVersionMatch = "", ""
					continue
				}
				yield(zero, err)
				return
			}
			for _, t := range page {
				key := t.GetNamespace() + "/" + t.GetName()
				if _, dup := seen[key]; dup {
					continue
				}
				seen[key] = struct{}{}
				yielded++
				if !yield(t, nil) {
					stop = true
					break
				}
			}
			if stop || lm.Continue == "" {
				return
			}
			lo.Continue = lm.Continue
			// A continued list is served from the first page's snapshot; the
			// server refuses a resourceVersion alongside a continue token.
			lo.ResourceVersion, lo.ResourceVersionMatch = "", ""
		}
	}
}
