package discovery

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ErrPartial is wrapped by *PartialError.
var ErrPartial = errors.New("discovery: some groups failed")

// ErrStale says that the server marked a group/version's discovery data as
// stale (its aggregated API server did not answer): its resources may be
// missing.
var ErrStale = errors.New("discovery: stale group/version")

// PartialError is returned alongside a usable Snapshot when some
// group/versions could not be discovered. The Snapshot holds everything
// else. It wraps ErrPartial and each group's error.
type PartialError struct {
	Failed map[schema.GroupVersion]error
}

func (e *PartialError) Error() string {
	gvs := slices.SortedFunc(maps.Keys(e.Failed), func(a, b schema.GroupVersion) int {
		return strings.Compare(a.String(), b.String())
	})
	var b strings.Builder
	b.WriteString("discovery: unable to discover ")
	for i, gv := range gvs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%v)", gv, e.Failed[gv])
	}
	return b.String()
}

// Unwrap returns ErrPartial and the error of each group/version.
func (e *PartialError) Unwrap() []error {
	out := []error{ErrPartial}
	for _, err := range e.Failed {
		out = append(out, err)
	}
	return out
}

// ErrNoMatch is wrapped by *NoMatchError.
var ErrNoMatch = errors.New("discovery: no match")

// NoMatchError reports a kind or resource the server does not serve (also
// after a refresh, when the RESTMapper was allowed one).
type NoMatchError struct {
	// What was looked up: a GroupKind or a partial GroupVersionResource.
	What string
	// Cause is the discovery error of the refresh, if any (a
	// *PartialError that may explain the miss).
	Cause error
}

func (e *NoMatchError) Error() string {
	msg := "discovery: no resource matches " + e.What
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Unwrap returns ErrNoMatch and the cause.
func (e *NoMatchError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrNoMatch}
	}
	return []error{ErrNoMatch, e.Cause}
}
