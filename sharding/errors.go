package sharding

import (
	"errors"
	"fmt"
)

// Sentinels; test with errors.Is.
var (
	// ErrInvalidOptions is wrapped by every *ConfigError.
	ErrInvalidOptions = errors.New("sharding: invalid options")
	// ErrRunning is returned by a second call of Member.Run or
	// Sharder.Run.
	ErrRunning = errors.New("sharding: already running")
)

// ConfigError names an option that cannot be used. It wraps
// ErrInvalidOptions.
type ConfigError struct {
	Field  string
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("sharding: %s: %s", e.Field, e.Reason)
}

func (e *ConfigError) Unwrap() error { return ErrInvalidOptions }

// AckError is returned by a guarded reconcile whose acknowledgement of a
// drain failed; the Request is retried. Err is the API server's error.
type AckError struct {
	Object string
	Err    error
}

func (e *AckError) Error() string {
	return fmt.Sprintf("sharding: acknowledging the drain of %s: %v", e.Object, e.Err)
}

func (e *AckError) Unwrap() error { return e.Err }

// PatchError is returned by the sharder's reconcile when labelling an
// object failed for another reason than a conflict or its deletion; the
// object is retried. Err is the API server's error.
type PatchError struct {
	Object string
	Action string
	Err    error
}

func (e *PatchError) Error() string {
	return fmt.Sprintf("sharding: %s %s: %v", e.Action, e.Object, e.Err)
}

func (e *PatchError) Unwrap() error { return e.Err }
