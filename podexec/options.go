package podexec

import "io"

// Options say which container to reach and where its streams go. The zero
// value of each stream field means that stream is not requested.
type Options struct {
	// Namespace and Pod name the Pod; both are required.
	Namespace string
	Pod       string
	// Container names the container; empty means the Pod's only container
	// (the server refuses the request if it has several).
	Container string

	// Command is the command Run executes, program first. Attach refuses
	// a non-empty Command.
	Command []string

	// Stdin, when set, is copied to the container's standard input.
	// Run does not wait for a Read of Stdin that is blocked when the
	// stream ends: that goroutine ends when the Read returns.
	Stdin io.Reader
	// Stdout and Stderr, when set, receive the container's output. They
	// are written by one goroutine, in order. Stderr is not requested
	// with TTY.
	Stdout io.Writer
	Stderr io.Writer

	// TTY asks for a terminal.
	TTY bool
	// Resize, when set with TTY, sends each size received to the
	// terminal. The stream does not close it; it stops reading it when
	// the stream ends.
	Resize <-chan Size
}

// Size is a terminal size in characters.
type Size struct {
	Width  uint16
	Height uint16
}
