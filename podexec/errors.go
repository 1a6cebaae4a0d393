package podexec

import (
	"errors"
	"fmt"
)

// ErrInvalidOptions is wrapped by the error of Run and Attach for options
// that cannot make a request (no Pod, no Command for Run, a Command for
// Attach, no stream at all).
var ErrInvalidOptions = errors.New("podexec: invalid options")

// ErrNoStatus is wrapped by a *StreamError when the server closed the
// stream without saying how the command ended.
var ErrNoStatus = errors.New("podexec: the stream ended without a result")

// ExitError is returned when the command ran and exited with a non-zero
// status. The stream itself worked.
type ExitError struct {
	// Code is the exit status of the command.
	Code int
	// Message is the server's description.
	Message string
}

func (e *ExitError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("podexec: command exited with code %d", e.Code)
	}
	return fmt.Sprintf("podexec: command exited with code %d: %s", e.Code, e.Message)
}

// StreamError is returned when the stream broke: the connection was lost,
// the server sent frames that break the protocol, or it closed without a
// result. Err is the cause.
type StreamError struct {
	// Protocol is the subprotocol in use.
	Protocol string
	Err      error
}

func (e *StreamError) Error() string {
	return fmt.Sprintf("podexec: stream (%s): %v", e.Protocol, e.Err)
}

func (e *StreamError) Unwrap() error { return e.Err }
