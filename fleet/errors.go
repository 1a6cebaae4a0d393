package fleet

import (
	"errors"
	"strconv"
)

var (
	// ErrUnknown is wrapped by the error of a lookup or removal of a
	// cluster name that is not held.
	ErrUnknown = errors.New("unknown cluster")
	// ErrDuplicate is wrapped by the error of adding a cluster under a name
	// already held.
	ErrDuplicate = errors.New("duplicate cluster name")
	// ErrRemoved is wrapped by the errors of a Cluster's methods once it
	// has been stopped (removed from its Manager, or replaced): its client
	// still works, but its caches are gone.
	ErrRemoved = errors.New("cluster removed")
	// ErrInvalid is wrapped by the error of New for a nil rest.Config, and
	// of a Manager's AddCluster for an empty name.
	ErrInvalid = errors.New("invalid cluster")
	// ErrNotSelfContained is wrapped by the error of a kubeconfig Secret
	// (see Secrets) that names an exec plugin or a local file, when
	// Secrets.AllowExecAndFiles is off.
	ErrNotSelfContained = errors.New("kubeconfig is not self-contained: exec plugin or local file")
)

// Error names the cluster an error is about. It wraps one of the sentinels
// above (or, from a provider, the cause of a configuration that could not
// be built).
type Error struct {
	Cluster string
	Err     error
}

func (e *Error) Error() string {
	return "cluster " + strconv.Quote(e.Cluster) + ": " + e.Err.Error()
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }
