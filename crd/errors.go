package crd

import (
	"errors"
	"fmt"
)

var (
	// ErrNotCRD is wrapped by the errors of Parse, ReadFiles and
	// FromValue for a document or value that is not an
	// apiextensions.k8s.io/v1 CustomResourceDefinition with a name.
	ErrNotCRD = errors.New("not a CustomResourceDefinition")
	// ErrNotServed is wrapped by *NotServedError.
	ErrNotServed = errors.New("CustomResourceDefinition not served")
)

// NotServedError is returned by Install and Wait when a definition was
// not Established and served in time, or when the server refused its
// names (NamesAccepted false: a plural or kind another definition
// already uses), which waiting cannot fix.
type NotServedError struct {
	// Name is the definition's name (<plural>.<group>).
	Name string
	// Reason says what was last seen: a condition's message or the error
	// of the last LIST.
	Reason string
	// Err is the context's error when the wait ended with it.
	Err error
}

func (e *NotServedError) Error() string {
	msg := fmt.Sprintf("crd: %s not served: %s", e.Name, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns ErrNotServed and the context's error, if any.
func (e *NotServedError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrNotServed}
	}
	return []error{ErrNotServed, e.Err}
}
