package testenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubego/kubego/rest"
)

// APIServer is one kube-apiserver process of a ControlPlane. Its methods are
// safe for concurrent use.
type APIServer struct {
	cp   *ControlPlane
	port int
	args []string

	mu   sync.Mutex
	proc *process
}

func (cp *ControlPlane) newAPIServer(ctx context.Context, extra []string) (*APIServer, error) {
	var lastErr error
	// A free port can be taken by someone else between our probe and the
	// server's bind; try a few.
	for range 3 {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		as := &APIServer{cp: cp, port: port}
		as.args = append(cp.apiServerArgs(port), extra...)
		if err := as.start(ctx); err != nil {
			lastErr = err
			var se *StartError
			if errors.As(err, &se) && errors.Is(err, ErrExited) && containsAddrInUse(se.Output) {
				continue
			}
			return nil, err
		}
		return as, nil
	}
	return nil, lastErr
}

func containsAddrInUse(out string) bool {
	return len(out) > 0 && (strings.Contains(out, "address already in use"))
}

func (cp *ControlPlane) apiServerArgs(port int) []string {
	args := []string{
		"--etcd-servers=" + cp.etcdEndpoint,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + cp.dir + "/apiserver-" + strconv.Itoa(port),
		"--tls-cert-file=" + cp.pki.servingCertFile,
		"--tls-private-key-file=" + cp.pki.servingKeyFile,
		"--client-ca-file=" + cp.pki.caFile,
		"--service-account-key-file=" + cp.pki.saPublicFile,
		"--service-account-signing-key-file=" + cp.pki.saPrivateFile,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--allow-privileged=true",
		"--disable-admission-plugins=ServiceAccount",
		"--v=0",
	}
	if len(cp.opts.StaticTokens) > 0 {
		args = append(args, "--token-auth-file="+cp.tokenFile())
	}
	if len(cp.opts.KubeletCA) > 0 {
		args = append(args,
			"--kubelet-certificate-authority="+cp.kubeletCAFile(),
			"--kubelet-preferred-address-types=InternalIP")
	}
	return args
}

func (as *APIServer) start(ctx context.Context) error {
	p, err := startProcess("kube-apiserver", as.cp.bins.APIServer, as.args, as.cp.opts.Output)
	if err != nil {
		return err
	}
	as.mu.Lock()
	as.proc = p
	as.mu.Unlock()
	client, err := as.cp.adminHTTPClient()
	if err != nil {
		p.kill()
		return err
	}
	url := as.URL() + "/readyz"
	err = waitReady(ctx, p, as.cp.opts.StartTimeout, func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/readyz answered %d: %s", resp.StatusCode, body)
		}
		return nil
	})
	if err != nil {
		se := p.startError(err)
		p.stop(time.Second)
		return se
	}
	as.cp.log.Debug("testenv: kube-apiserver ready", "url", as.URL())
	return nil
}

// URL is the https base URL of this kube-apiserver.
func (as *APIServer) URL() string { return "https://127.0.0.1:" + strconv.Itoa(as.port) }

// Port is the loopback port this kube-apiserver listens on; it stays the same
// across Restart.
func (as *APIServer) Port() int { return as.port }

// Config returns a new admin *rest.Config for this kube-apiserver.
func (as *APIServer) Config() *rest.Config {
	p := as.cp.pki
	return &rest.Config{
		Host: as.URL(),
		TLS: rest.TLSConfig{
			CAData:   append([]byte(nil), p.caPEM...),
			CertData: append([]byte(nil), p.adminCertPEM...),
			KeyData:  append([]byte(nil), p.adminKeyPEM...),
		},
	}
}

// Stop terminates the process gracefully: SIGTERM, then SIGKILL after
// Options.StopGrace (3 s by default: a test control plane has nothing to
// drain).
func (as *APIServer) Stop() { as.StopWithGrace(as.cp.opts.StopGrace) }

// StopWithGrace is Stop with an explicit grace period, for tests that watch a
// server drain (--shutdown-delay-duration, --shutdown-send-retry-after).
func (as *APIServer) StopWithGrace(grace time.Duration) {
	as.mu.Lock()
	p := as.proc
	as.mu.Unlock()
	p.stop(grace)
}

// Kill ends the process with SIGKILL at once, as a crash would.
func (as *APIServer) Kill() {
	as.mu.Lock()
	p := as.proc
	as.mu.Unlock()
	p.kill()
}

// Running reports whether the process is alive.
func (as *APIServer) Running() bool {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.proc != nil && !as.proc.exited()
}

// Restart starts the process again on the same port with the same flags,
// after stopping it if it still runs, and waits until it is ready.
func (as *APIServer) Restart(ctx context.Context) error {
	as.Stop()
	var err error
	// The port may linger briefly in the kernel after a kill.
	for range 5 {
		if err = as.start(ctx); err == nil {
			return nil
		}
		var se *StartError
		if !(errors.As(err, &se) && containsAddrInUse(se.Output)) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return err
}
