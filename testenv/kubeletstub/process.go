package kubeletstub

import (
	"context"
	"errors"
	"io"
)

// Process is one exec or attach session, as the stand-in's Run sees it.
type Process struct {
	Namespace string
	Pod       string
	Container string
	// Command is the command of an exec; empty for an attach.
	Command []string
	// Attach is true for an attach session.
	Attach bool
	TTY    bool
	// Stdin, Stdout and Stderr are nil when the client did not ask for
	// them. Stdin ends (io.EOF) when the client closes it (v5) or the
	// stream ends.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Resize receives the terminal sizes the client sends (TTY only; nil
	// otherwise). It is closed when the stream ends.
	Resize <-chan TerminalSize
}

// TerminalSize is a terminal size sent by the client.
type TerminalSize struct {
	Width  uint16
	Height uint16
}

// ExitCode is returned by a RunFunc (wrapped or not) for a command that
// exited with a non-zero status.
type ExitCode int

func (e ExitCode) Error() string { return "command exited with a non-zero status" }

// ErrHangUp makes the stand-in close the stream without a result, as a
// kubelet that dies mid-stream would.
var ErrHangUp = errors.New("kubeletstub: hang up")

// RunFunc runs a Process until it ends. It returns nil for exit status
// zero, an ExitCode for another, ErrHangUp to drop the stream, and any
// other error to report a failure to run.
type RunFunc func(ctx context.Context, p *Process) error
