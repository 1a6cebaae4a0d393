package testenv

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// process is one child program run in its own process group, killed when
// the parent dies, with the tail of its output kept for error messages.
type process struct {
	name string
	cmd  *exec.Cmd
	out  *ringBuffer

	done    chan struct{} // closed when the process has exited
	waitErr error         // valid after done is closed
}

func startProcess(name, path string, args []string, tee io.Writer) (*process, error) {
	p := &process{name: name, out: newRingBuffer(64 << 10), done: make(chan struct{})}
	var w io.Writer = p.out
	if tee != nil {
		w = io.MultiWriter(p.out, tee)
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout = w
	cmd.Stderr = w
	cmd.Env = os.Environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid: true,
		// The child gets SIGKILL when the thread that started it exits. Go
		// keeps OS threads alive for the life of the process unless a locked
		// goroutine exits, so in practice this fires when the test binary
		// dies, including on SIGKILL.
		Pdeathsig: syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("testenv: starting %s: %w", name, err)
	}
	p.cmd = cmd
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM to the process group, waits up to grace, then sends
// SIGKILL and waits for the exit. It is idempotent.
func (p *process) stop(grace time.Duration) {
	if p == nil || p.exited() {
		return
	}
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-p.done
}

// kill sends SIGKILL to the process group at once and waits for the exit.
func (p *process) kill() {
	if p == nil || p.exited() {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// StartError reports a control-plane process that did not become ready,
// with the tail of its output.
type StartError struct {
	Process string
	Output  string
	Err     error
}

func (e *StartError) Error() string {
	return fmt.Sprintf("testenv: %s did not start: %v\n--- last output of %s ---\n%s", e.Process, e.Err, e.Process, e.Output)
}

func (e *StartError) Unwrap() error { return e.Err }

// ErrExited means a control-plane process ended while it was expected to run.
var ErrExited = errors.New("process exited")

func (p *process) startError(err error) *StartError {
	if p.exited() {
		err = fmt.Errorf("%w (%v): %w", ErrExited, p.waitErr, err)
	}
	return &StartError{Process: p.name, Output: p.out.String(), Err: err}
}

// ringBuffer keeps the last n bytes written to it.
type ringBuffer struct {
	mu   sync.Mutex
	buf  []byte
	size int
}

func newRingBuffer(size int) *ringBuffer { return &ringBuffer{size: size} }

func (r *ringBuffer) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, b...)
	if over := len(r.buf) - r.size; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	return len(b), nil
}

func (r *ringBuffer) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.buf)
}
