package manager

import (
	"errors"
	"fmt"

	"github.com/kubego/kubego/controller"
)

var (
	// ErrInvalidOptions is wrapped by every error New and Add return for
	// options or arguments that cannot work (no Config, a nil Runnable).
	ErrInvalidOptions = errors.New("invalid manager options")
	// ErrAlreadyStarted is returned by a second Start. It is
	// controller.ErrAlreadyStarted, the one sentinel of the concept, so
	// errors.Is matches either name.
	ErrAlreadyStarted = controller.ErrAlreadyStarted
	// ErrStopped is wrapped by the error Add (and so NewController)
	// returns once the Manager has begun to stop.
	ErrStopped = errors.New("manager stopped")
)

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidOptions, fmt.Sprintf(format, args...))
}
