package informer

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// ErrInitialEventsNotFinished is recorded when a streaming initial list
// (sendInitialEvents) did not deliver its end bookmark within
// ReflectorOptions.InitialEventsTimeout, or ended before it. The reflector then
// falls back to a paginated LIST.
var ErrInitialEventsNotFinished = errors.New("initial events stream did not finish")

// ErrWatchStalled means a watch stayed open well past the timeoutSeconds
// the reflector asked for: the server (or something between) stopped
// sending. The reflector abandons the watch and watches again.
var ErrWatchStalled = errors.New("watch stalled past its timeout")

// ErrListTimeout means a LIST page did not arrive within
// ReflectorOptions.ListTimeout.
var ErrListTimeout = errors.New("LIST page timed out")

// ErrNotSynced is wrapped by every *[SyncError]: the cache has not synced.
var ErrNotSynced = errors.New("informer not synced")

// SyncError is what WaitForSync returns when the context ends before the cache
// has synced. It names the informer, wraps the context's error and the cause
// of the last failed attempt (an *apierrors.StatusError for 403 Forbidden or
// 404 NotFound, [ErrInitialEventsNotFinished], a transport error, ...), and
// [ErrNotSynced]. Branch with errors.Is / errors.As or apierrors.IsForbidden
// etc., which see through it.
//
// WaitForSync also returns a SyncError, before ctx ends, when the informer
// keeps failing for a reason retrying will not fix (see [IsPermanent] and
// Options.FailFastAfter): then Permanent is true, Ctx is nil and Cause is
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

// ErrPermanent marks an error as permanent for [IsPermanent]. A [Backend] or
// [ListerWatcher] may wrap it (fmt.Errorf("...: %w", ErrPermanent), or in a
// type's Unwrap) in failures that retrying cannot fix, such as an unknown
// Go type.
var ErrPermanent = errors.New("permanent failure")

// IsPermanent reports whether err is a failure that retrying the same call
// will not fix by itself: 401 Unauthorized, 403 Forbidden, 404 NotFound
// (the resource is not served: a CRD not installed, a wrong group or
// version), or an error wrapping [ErrPermanent]. Such failures may still
// go away when the cluster changes (RBAC granted, CRD installed), which is
// why informers keep retrying them; only WaitForSync stops waiting.
func IsPermanent(err error) bool {
	if err == nil {
		return false
	}
	return apierrors.IsForbidden(err) || apierrors.IsNotFound(err) || apierrors.IsUnauthorized(err) ||
		errors.Is(err, ErrPermanent)
}
