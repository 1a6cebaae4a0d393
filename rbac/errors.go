package rbac

import (
	"errors"
	"strconv"
	"strings"
)

// ErrInvalid is wrapped by the errors of options and permissions
// [Derive] cannot use.
var ErrInvalid = errors.New("rbac: invalid input")

// ErrDenied is wrapped by the *DeniedError of [Check].
var ErrDenied = errors.New("rbac: requests denied")

// OptionsError is an unusable Options.
type OptionsError struct{ Reason string }

func (e *OptionsError) Error() string { return "rbac: options: " + e.Reason }
func (e *OptionsError) Unwrap() error { return ErrInvalid }

// PermissionError is a Permission that cannot be a rule, and why.
type PermissionError struct {
	Permission Permission
	Reason     string
}

func (e *PermissionError) Error() string {
	return "rbac: permission " + e.Permission.String() + ": " + e.Reason
}
func (e *PermissionError) Unwrap() error { return ErrInvalid }

// DeniedError lists the requests the rules [Check] was given do not
// allow: each one would be answered 403 Forbidden by kube-apiserver.
type DeniedError struct {
	// Requests are the denied requests, sorted.
	Requests []Request
}

func (e *DeniedError) Error() string {
	var b strings.Builder
	b.WriteString("rbac: the rules deny ")
	if len(e.Requests) == 1 {
		b.WriteString("1 request: ")
	} else {
		b.WriteString(strconv.Itoa(len(e.Requests)) + " requests: ")
	}
	for i, r := range e.Requests {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(r.String())
	}
	return b.String()
}

func (e *DeniedError) Unwrap() error { return ErrDenied }
