package record

import (
	"errors"
	"fmt"
)

// ErrInvalidOptions is wrapped by every *OptionsError.
var ErrInvalidOptions = errors.New("record: invalid options")

// ErrInvalidEvent is wrapped by every *InvalidEventError.
var ErrInvalidEvent = errors.New("record: invalid event")

// OptionsError reports an Options field New cannot accept.
type OptionsError struct {
	Field  string
	Reason string
}

func (e *OptionsError) Error() string {
	return fmt.Sprintf("record: invalid options: %s: %s", e.Field, e.Reason)
}

// Unwrap returns ErrInvalidOptions.
func (e *OptionsError) Unwrap() error { return ErrInvalidOptions }

// InvalidEventError reports an Eventf call whose arguments cannot make a
// valid events.k8s.io/v1 Event. Eventf drops such calls (DropInvalid) and
// logs this error.
type InvalidEventError struct {
	Field  string // "regarding", "related", "type", "reason", "action"
	Reason string
	Err    error // underlying error (e.g. from the scheme), may be nil
}

func (e *InvalidEventError) Error() string {
	msg := fmt.Sprintf("record: invalid event: %s: %s", e.Field, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns ErrInvalidEvent and the underlying error, if any.
func (e *InvalidEventError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrInvalidEvent}
	}
	return []error{ErrInvalidEvent, e.Err}
}

// ShutdownError is returned by Shutdown when its context ends before every
// pending write was done. It wraps the context's error.
type ShutdownError struct {
	// Unwritten is the number of Events whose creation or series update was
	// abandoned.
	Unwritten int
	Err       error
}

func (e *ShutdownError) Error() string {
	return fmt.Sprintf("record: shutdown abandoned %d pending event writes: %v", e.Unwritten, e.Err)
}

// Unwrap returns the context's error.
func (e *ShutdownError) Unwrap() error { return e.Err }
