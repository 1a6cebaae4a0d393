package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"time"
)

// maxExecStdout bounds a plugin's stdout; maxExecStderr is how much of the
// end of its stderr is kept for error messages.
const (
	maxExecStdout = 1 << 20
	maxExecStderr = 4 << 10
)

// Command is one plugin run, as handed to a Runner.
type Command struct {
	// Path is the command as configured (looked up in PATH by the runner).
	Path string
	Args []string
	// Env is the complete environment of the process.
	Env []string
	// Stdin is nil unless the plugin runs interactively.
	Stdin io.Reader
	// Stderr, when set, also receives the plugin's stderr as it is written
	// (for prompts); the runner captures it for error messages either way.
	Stderr io.Writer
}

// String describes c with the values of its environment left out (they
// hold the plugin's configured secrets): the path, the arguments and the
// names of the variables.
func (c Command) String() string {
	names := make([]string, len(c.Env))
	for i, kv := range c.Env {
		names[i], _, _ = strings.Cut(kv, "=")
	}
	return fmt.Sprintf("auth.Command{Path: %q, Args: %q, Env: %q (values redacted)}", c.Path, c.Args, names)
}

// GoString is like String.
func (c Command) GoString() string { return c.String() }

// Format makes every fmt verb print String.
func (c Command) Format(f fmt.State, verb rune) { _, _ = io.WriteString(f, c.String()) }

// LogValue makes log/slog print String.
func (c Command) LogValue() slog.Value { return slog.StringValue(c.String()) }

// MarshalJSON encodes String as a JSON string.
func (c Command) MarshalJSON() ([]byte, error) { return json.Marshal(c.String()) }

// Runner runs a plugin command until it exits or ctx ends, returning its
// stdout and (the end of) its stderr. A command that cannot be found must
// yield an error wrapping exec.ErrNotFound or fs.ErrNotExist; one that
// exits non-zero an *exec.ExitError (or any other error).
type Runner interface {
	Run(ctx context.Context, cmd Command) (stdout, stderr []byte, err error)
}

// RunnerFunc adapts a function to Runner.
type RunnerFunc func(ctx context.Context, cmd Command) (stdout, stderr []byte, err error)

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, cmd Command) ([]byte, []byte, error) {
	return f(ctx, cmd)
}

// osRunner runs commands with os/exec.
type osRunner struct{}

func (osRunner) Run(ctx context.Context, c Command) ([]byte, []byte, error) {
	cmd := exec.CommandContext(ctx, c.Path, c.Args...)
	cmd.Env = c.Env
	cmd.Stdin = c.Stdin // nil: the null device
	stdout := &capBuffer{max: maxExecStdout}
	stderr := &tailBuffer{max: maxExecStderr}
	cmd.Stdout = stdout
	if c.Stderr != nil {
		cmd.Stderr = io.MultiWriter(stderr, c.Stderr)
	} else {
		cmd.Stderr = stderr
	}
	// A plugin that leaves children holding its pipes must not hang us.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if err == nil && stdout.over {
		err = ErrTooLarge
	}
	return stdout.Bytes(), stderr.Bytes(), err
}

// capBuffer keeps the first max bytes written and notes overflow.
type capBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *capBuffer) Write(p []byte) (int, error) {
	room := b.max - b.Len()
	if len(p) > room {
		b.over = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// tailBuffer keeps the last max bytes written.
type tailBuffer struct {
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) Bytes() []byte { return b.buf }

// isNotFound reports whether err says the command does not exist.
func isNotFound(err error) bool {
	return errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist)
}

// isTerminal reports whether r is a character device (a terminal).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok || f == nil {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
