package leaderelection

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
)

// ErrInvalidConfig is wrapped by every *ConfigError.
var ErrInvalidConfig = errors.New("leaderelection: invalid config")

// ErrLeaseLost is wrapped by every *LostError: the candidate led and its
// term ended without its context being cancelled.
var ErrLeaseLost = errors.New("leaderelection: leadership lost")

// ErrRunning is returned by Run when the Elector already ran (or runs): an
// Elector drives one election, once.
var ErrRunning = errors.New("leaderelection: Run called more than once")

// ConfigError reports a Config field that New cannot accept.
type ConfigError struct {
	Field  string // e.g. "RenewDeadline"
	Reason string // what is wrong with it
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("leaderelection: invalid config: %s: %s", e.Field, e.Reason)
}

// Unwrap returns ErrInvalidConfig.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }

// LostError is what Run returns when leadership ended for another reason
// than the cancellation of Run's context: the lease could not be renewed
// within RenewDeadline, another candidate holds it, or it was deleted.
type LostError struct {
	Lease types.NamespacedName
	// Holder is the identity found in the lease when it was lost to another
	// candidate; empty when the term simply ran out.
	Holder string
	// Cause is the last error of the lease store, if any.
	Cause error
}

func (e *LostError) Error() string {
	msg := "leaderelection: leadership of lease " + e.Lease.String() + " lost"
	switch {
	case e.Holder != "":
		msg += ": now held by " + e.Holder
	case e.Cause != nil:
		msg += ": " + e.Cause.Error()
	default:
		msg += ": not renewed within RenewDeadline"
	}
	return msg
}

// Unwrap returns ErrLeaseLost and the cause, if any.
func (e *LostError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrLeaseLost}
	}
	return []error{ErrLeaseLost, e.Cause}
}

// errLeaseDeleted is the cause of a LostError when the leader finds its lease
// gone.
var errLeaseDeleted = errors.New("lease was deleted")
