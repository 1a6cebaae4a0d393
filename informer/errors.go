package informer

import (
	"errors"
	"fmt"
)

// ErrInitialEventsNotFinished is recorded when a streaming initial list
// (sendInitialEvents) did not deliver its end bookmark within
// ReflectorOptions.InitialEventsTimeout, or ended before it. The reflector then
// falls back to a paginated LIST.
var ErrInitialEventsNotFinished = errors.New("initial events stream did not finish")

// ErrNotSynced is wrapped by every *[SyncError]: the cache has not synced.
var ErrNotSynced = errors.New("informer not synced")

// SyncError is what WaitForSync returns when the context ends before the cache
// has synced. It names the informer, wraps the context's error and the cause
// of the last failed attempt (an *apierrors.StatusError for 403 Forbidden or
// 404 NotFound, [ErrInitialEventsNotFinished], a transport error, ...), and
// [ErrNotSynced]. Branch with errors.Is / errors.As or apierrors.IsForbidden
// etc., which see through it.
type SyncError struct {
	Informer string // the informer's target, e.g. "/v1, Resource=pods in namespace ns"
	Cause    error  // last failure, nil if no attempt has failed yet
	Attempts int    // failed attempts so far
	Ctx      error  // the context's error
}

func (e *SyncError) Error() string {
	if e.Cause == nil {
		return fmt.Sprintf("informer %s not synced: %v (no failed attempt yet)", e.Informer, e.Ctx)
	}
	return fmt.Sprintf("informer %s not synced after %d failed attempts: %v", e.Informer, e.Attempts, e.Cause)
}

// Unwrap returns the cause, the context error and [ErrNotSynced].
func (e *SyncError) Unwrap() []error {
	errs := []error{ErrNotSynced}
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	if e.Ctx != nil {
		errs = append(errs, e.Ctx)
	}
	return errs
}
