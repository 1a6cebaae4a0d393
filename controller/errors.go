package controller

import (
	"errors"
	"fmt"
)

var (
	// ErrInvalidOptions is wrapped by every error New returns for options
	// that cannot work (no Reconciler, no Source, two For sources, a
	// negative worker count, ...).
	ErrInvalidOptions = errors.New("invalid controller options")
	// ErrAlreadyStarted is returned by a second Start of a Controller. The
	// manager package returns the same value for a second Start of a
	// Manager.
	ErrAlreadyStarted = errors.New("already started")
	// ErrSourceReused is returned by New for a Channel source already bound to
	// another Controller.
	ErrSourceReused = errors.New("source already used by a controller")
	// ErrReconcileTimeout is the cause (context.Cause) of a Reconcile
	// context that ended at Options.ReconcileTimeout.
	ErrReconcileTimeout = errors.New("reconcile timed out")
	// ErrUnknownKind is returned by New when the owner kind of an Owns
	// source cannot be found, or when Options.Kinds cannot map the Go type
	// of a source.
	ErrUnknownKind = errors.New("unknown kind")
	// ErrNotSynced is wrapped by the error Start returns when a watched
	// informer did not sync within Options.CacheSyncTimeout; the
	// informer's *informer.SyncError, carrying the cause (403, missing
	// resource, ...), is wrapped too.
	ErrNotSynced = errors.New("caches did not sync")
	// ErrDuplicateCluster is returned by Engage for a cluster name engaged
	// already.
	ErrDuplicateCluster = errors.New("cluster engaged already")
	// ErrUnknownCluster is returned by Disengage for a cluster name not
	// engaged.
	ErrUnknownCluster = errors.New("cluster not engaged")
	// ErrStopped is returned by Engage once Start has returned.
	ErrStopped = errors.New("controller stopped")
)

// SyncError is returned by Controller.Start when its sources did not sync
// in time. It wraps ErrNotSynced and the informers' errors, so errors.As
// finds an *informer.SyncError and apierrors.IsForbidden sees a 403 cause.
type SyncError struct {
	Controller string
	Err        error // the joined errors of the informers that did not sync
}

func (e *SyncError) Error() string {
	return fmt.Sprintf("controller %s: %v: %v", e.Controller, ErrNotSynced, e.Err)
}

func (e *SyncError) Unwrap() []error { return []error{ErrNotSynced, e.Err} }

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidOptions, fmt.Sprintf(format, args...))
}

func panicString(v any) string {
	switch v := v.(type) {
	case error:
		return v.Error()
	case string:
		return v
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprintf("%v", v)
}
