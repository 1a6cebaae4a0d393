//go:build linux

package faults_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/rest"
)

// Controllers that must die with SIGKILL run in child processes: the test
// binary run again with -test.run=^TestControllerChild$ and the path of a
// childSpec in childEnv. The child runs a marker Manager until SIGTERM.

const childEnv = "KUBEGO_FAULTS_CONTROLLER_CHILD"

// childSpec is what a child needs: how to reach the API server (admin
// client certificate) and its controller's options.
type childSpec struct {
	Host          string
	CA, Cert, Key []byte
	Ctl           ctlOptions
}

// TestControllerChild is the body of a child process; run directly it
// skips.
func TestControllerChild(t *testing.T) {
	path := os.Getenv(childEnv)
	if path == "" {
		t.Skip("the child process of the controller fault scenarios (they start it)")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var spec childSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	cfg := &rest.Config{Host: spec.Host, TLS: rest.TLSConfig{CAData: spec.CA, CertData: spec.Cert, KeyData: spec.Key}}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	for {
		mgr, m, err := newCtlManager(cfg, spec.Ctl, nil, logger)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			select {
			case <-mgr.Elected():
				m.log.write("elected", "-", "-")
			case <-ctx.Done():
			}
		}()
		err = mgr.Start(ctx)
		if spec.Ctl.RestartOnLoss && errors.Is(err, leaderelection.ErrLeaseLost) && ctx.Err() == nil {
			// A leader that missed its renew deadline (a loaded machine)
			// stops; a Deployment's Pod would be restarted, and so is the
			// Manager here: a new one, a candidate again. Its reconciles
			// have ended (Start returns after them).
			logger.Warn("child: leadership lost; starting a new Manager", "error", err)
			m.log.write("restart", "-", "-")
			m.log.close()
			continue
		}
		m.log.write("exit", "-", fmt.Sprint(err == nil))
		m.log.close()
		if err != nil {
			t.Fatal(err)
		}
		return
	}
}

// child is a controller process.
type child struct {
	id   string
	cmd  *exec.Cmd
	done chan struct{}
	out  syncBuffer

	mu     sync.Mutex
	exited int64 // monotonic ns when it ended
	err    error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startChild starts a controller process reaching the API server as cfg
// (admin client certificate) with options o. It is killed at cleanup, and
// by the kernel if the test process dies.
func startChild(t *testing.T, cfg *rest.Config, o ctlOptions) *child {
	t.Helper()
	spec := childSpec{Host: cfg.Host, CA: cfg.TLS.CAData, Cert: cfg.TLS.CertData, Key: cfg.TLS.KeyData, Ctl: o}
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), o.Identity+".json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	c := &child{id: o.Identity, done: make(chan struct{})}
	c.cmd = exec.Command(os.Args[0], "-test.run=^TestControllerChild$", "-test.timeout=0")
	c.cmd.Env = append(os.Environ(), childEnv+"="+path)
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := c.cmd.Wait()
		c.mu.Lock()
		c.exited, c.err = monotonicNow(), err
		c.mu.Unlock()
		close(c.done)
	}()
	t.Cleanup(func() {
		c.signal(syscall.SIGKILL)
		<-c.done
		if t.Failed() {
			t.Logf("child %s output:\n%s", c.id, c.out.String())
		}
	})
	return c
}

func (c *child) signal(s syscall.Signal) {
	select {
	case <-c.done:
	default:
		_ = c.cmd.Process.Signal(s)
	}
}

// kill sends SIGKILL and waits for the process to end.
func (c *child) kill(t *testing.T) {
	t.Helper()
	c.signal(syscall.SIGKILL)
	<-c.done
}

// term sends SIGTERM and waits (at most within) for the process to end;
// it fails the test if the child failed.
func (c *child) term(t *testing.T, within time.Duration) {
	t.Helper()
	c.signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(within):
		t.Errorf("child %s still running %s after SIGTERM", c.id, within)
		c.kill(t)
		return
	}
	if _, err := c.result(); err != nil {
		t.Errorf("child %s: %v\n%s", c.id, err, c.out.String())
	}
}

// result is when the process ended (monotonic ns, 0 if running) and how.
func (c *child) result() (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exited, c.err
}
