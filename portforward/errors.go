package portforward

import (
	"errors"
	"fmt"
)

// ErrInvalidOptions is wrapped by errors about options that cannot make a
// request (no Pod, no port).
var ErrInvalidOptions = errors.New("portforward: invalid options")

// ErrDeadline is returned by the deadline methods of a Conn: the stream
// cannot time out a blocked read or write on its own; cancel the context
// given to Dial or close the Conn instead.
var ErrDeadline = errors.New("portforward: deadlines are not supported; close the connection or cancel its context")

// RemoteError is what the kubelet reported on a connection's error
// channel: typically that nothing listens on the port in the Pod.
type RemoteError struct {
	Port    uint16
	Message string
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("portforward: port %d: %s", e.Port, e.Message)
}
