package informer

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// The sentinel errors of the package. Each typed error wraps one of them, so
// errors.Is works on every error an informer, a Reader or a Factory returns.
var (
	// ErrAlreadyRunning is returned by a second call to Run.
	ErrAlreadyRunning = errors.New("informer already running")

	// ErrCachedObjectMutated is wrapped by every *[MutationError].
	ErrCachedObjectMutated = errors.New("cached object was mutated")

	// ErrDeclared is wrapped by the error of a [Factory.Declare] of a type
	// that was declared before, or that was already asked for with other
	// options.
	ErrDeclared = errors.New("informer options declared twice")

	// ErrInitialEventsNotFinished is recorded when a streaming initial list
	// (sendInitialEvents) did not deliver its end bookmark within
	// ReflectorOptions.InitialEventsTimeout, or ended before it. The reflector then
	// falls back to a paginated LIST.
	ErrInitialEventsNotFinished = errors.New("initial events stream did not finish")

	// ErrHandlerPending is the cause in the *[SyncError] of
	// [Registration.WaitForSync] when its context ends after the cache
	// synced but before the handler was delivered the whole initial state.
	ErrHandlerPending = errors.New("handler not yet delivered the initial state")

	// ErrHandlerRemoved is returned by [Registration.WaitForSync] once the
	// registration's Remove has been called.
	ErrHandlerRemoved = errors.New("event handler removed")

	// ErrInvalidKey is wrapped by the error of a malformed object key.
	ErrInvalidKey = errors.New("invalid object key")

	// ErrListTimeout means a LIST page did not arrive within
	// ReflectorOptions.ListTimeout.
	ErrListTimeout = errors.New("LIST page timed out")

	// ErrNotFound is wrapped by a [Reader]'s error for a key its cache
	// does not hold (also a 404 NotFound Status for apierrors.IsNotFound).
	ErrNotFound = errors.New("object not found in the cache")

	// ErrNotStarted is the sync cause when WaitForSync gives up on an informer
	// whose Run was never called (a forgotten Start).
	ErrNotStarted = errors.New("informer not started")

	// ErrNotSynced is wrapped by every *[SyncError]: the cache has not synced.
	ErrNotSynced = errors.New("informer not synced")

	// ErrOptionsConflict is wrapped by every *[OptionsConflictError].
	ErrOptionsConflict = errors.New("conflicting informer options")

	// ErrPermanent marks a failure as permanent, like 401, 403 and 404
	// answers (see [Informer.WaitForSync]). A [Backend] or
	// [ListerWatcher] may wrap it (fmt.Errorf("...: %w", ErrPermanent), or in a
	// type's Unwrap) in failures that retrying cannot fix, such as an unknown
	// Go type.
	ErrPermanent = errors.New("permanent failure")

	// ErrRefused is wrapped by every *[RefusedError].
	ErrRefused = errors.New("object refused")

	// ErrStopped is returned by AddEventHandler and recorded as the sync cause
	// once the informer's Run has returned.
	ErrStopped = errors.New("informer stopped")

	// ErrUnexpectedType reports an object whose Go type is not the informer's T.
	ErrUnexpectedType = errors.New("unexpected object type")

	// ErrUnknownIndex is wrapped by errors for an index name that was not
	// registered.
	ErrUnknownIndex = errors.New("unknown index")

	// ErrWatchStalled means a watch stayed open well past the timeoutSeconds
	// the reflector asked for: the server (or something between) stopped
	// sending. The reflector abandons the watch and watches again.
	ErrWatchStalled = errors.New("watch stalled past its timeout")
)

// SyncError is what WaitForSync returns when the context ends before the cache
// has synced. It names the informer, wraps the context's error and the cause
// of the last failed attempt (an *apierrors.StatusError for 403 Forbidden or
// 404 NotFound, [ErrInitialEventsNotFinished], a transport error, ...), and
// [ErrNotSynced]. Branch with errors.Is / errors.As or apierrors.IsForbidden
// etc., which see through it.
//
// WaitForSync also returns a SyncError, before ctx ends, when the informer
// keeps failing for a reason retrying will not fix (401, 403, 404, or an
// error wrapping [ErrPermanent]; see Options.FailFastAfter): then Permanent is true, Ctx is nil and Cause is
// the last permanent error. The informer itself keeps retrying with backoff
// (RBAC may be granted or a CRD installed later); a later WaitForSync
// returns nil once it has synced.
type SyncError struct {
	Informer  string // the informer's target, e.g. "/v1, Resource=pods in namespace ns"
	Cause     error  // last failure, nil if no attempt has failed yet
	Attempts  int    // failed attempts so far
	Ctx       error  // the context's error; nil when Permanent
	Permanent bool   // returned early: Cause is permanent and kept recurring
}

func (e *SyncError) Error() string {
	if e.Permanent {
		return fmt.Sprintf("informer %s not synced: gave up waiting after %d failed attempts, the last ones permanent: %v", e.Informer, e.Attempts, e.Cause)
	}
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

// isPermanent reports whether err is a failure that retrying the same call
// will not fix by itself: 401 Unauthorized, 403 Forbidden, 404 NotFound
// (the resource is not served: a CRD not installed, a wrong group or
// version), or an error wrapping [ErrPermanent]. Such failures may still
// go away when the cluster changes (RBAC granted, CRD installed), which is
// why informers keep retrying them; only WaitForSync stops waiting.
func isPermanent(err error) bool {
	if err == nil {
		return false
	}
	return apierrors.IsForbidden(err) || apierrors.IsNotFound(err) || apierrors.IsUnauthorized(err) ||
		errors.Is(err, ErrPermanent)
}
