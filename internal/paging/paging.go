// Package paging walks a paginated LIST: it follows continue tokens with at
// most one page in memory, and when a token expires (410) it either ends
// with the caller's error (a consistent snapshot was asked for) or restarts
// at the current state, skipping objects already yielded. The typed and
// dynamic clients share it.
package paging

import (
	"context"
	"iter"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxRestarts bounds how often one iteration restarts after expired
// continue tokens before it gives up with the expired error.
const MaxRestarts = 5

// Object is what paging needs of an item: its namespace and name.
type Object interface {
	GetNamespace() string
	GetName() string
}

// Walk describes one iteration.
type Walk[T Object] struct {
	// List, Snapshot and PageSize (used when List.Limit is 0) come from the
	// caller's options.
	List     metav1.ListOptions
	Snapshot bool
	PageSize int64
	// Fetch lists one page with opts, returning its items and continue token.
	Fetch func(ctx context.Context, opts metav1.ListOptions) (items []T, cont string, err error)
	// Expired builds the error that ends the iteration when a continue
	// token expired and Snapshot is set (or restarts ran out); yielded is
	// how many objects were yielded before.
	Expired func(ctx context.Context, err error, yielded int) error
	// Invalid builds the error for a caller-supplied continue token.
	Invalid func(msg string) error
}

// All runs w. It yields (object, nil) pairs in server order and at most one
// (zero, err) pair, which ends it.
func All[T Object](ctx context.Context, w Walk[T]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		lo := w.List
		if lo.Continue != "" {
			yield(zero, w.Invalid("All manages continue tokens; List.Continue must be empty"))
			return
		}
		if lo.Limit == 0 {
			lo.Limit = w.PageSize
		}
		first := lo
		seen := map[string]struct{}{}
		restarts, yielded := 0, 0
		for {
			page, cont, err := w.Fetch(ctx, lo)
			if err != nil {
				if lo.Continue != "" && apierrors.IsResourceExpired(err) {
					if w.Snapshot || restarts >= MaxRestarts {
						yield(zero, w.Expired(ctx, err, yielded))
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
					return
				}
			}
			if cont == "" {
				return
			}
			lo.Continue = cont
			// A continued list is served from the first page's snapshot; the
			// server refuses a resourceVersion alongside a continue token.
			lo.ResourceVersion, lo.ResourceVersionMatch = "", ""
		}
	}
}
