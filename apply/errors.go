package apply

import (
	"errors"
	"fmt"
	"reflect"
)

// ErrUnsupported is wrapped by *TypeError.
var ErrUnsupported = errors.New("apply: unsupported type")

// ErrInvalid is wrapped by *SetError and *ExtractError.
var ErrInvalid = errors.New("apply: invalid configuration")

// TypeError reports a Go type this package cannot apply: not a pointer to
// a struct with a metav1.ObjectMeta field "metadata", or one whose schema
// cannot be derived (Cause, an *apischema.TypeError or
// *apischema.DeclarationError).
type TypeError struct {
	Type   reflect.Type
	Reason string
	Cause  error
}

func (e *TypeError) Error() string {
	msg := fmt.Sprintf("apply: type %v: %s", e.Type, e.Reason)
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Unwrap returns ErrUnsupported and the cause.
func (e *TypeError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrUnsupported}
	}
	return []error{ErrUnsupported, e.Cause}
}

// SetError reports a set function whose result cannot be read as a set of
// fields: it panicked (Path is empty), or the value it left at Path depends
// on the value it was given (it read a field before writing it, appended to
// a list it did not assign, or added to an atomic map it did not assign).
type SetError struct {
	Path   string
	Reason string
}

func (e *SetError) Error() string {
	if e.Path == "" {
		return "apply: set function: " + e.Reason
	}
	return "apply: set function, field " + e.Path + ": " + e.Reason
}

// Unwrap returns ErrInvalid.
func (e *SetError) Unwrap() error { return ErrInvalid }

// ExtractError reports a live object whose managed fields cannot be read.
type ExtractError struct {
	Manager string
	Reason  string
}

func (e *ExtractError) Error() string {
	return "apply: extracting the fields of " + e.Manager + ": " + e.Reason
}

// Unwrap returns ErrInvalid.
func (e *ExtractError) Unwrap() error { return ErrInvalid }

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
