package testenv

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/rest"
)

// tempPrefix starts the name of every control plane's temporary directory.
const tempPrefix = "kubego-testenv-"

// Options configure Start. The zero value starts etcd and one kube-apiserver
// with the defaults described in the package documentation.
type Options struct {
	// Version is the kube-apiserver minor version to run ("1.34"; see
	// Versions). Empty means the KUBEGO_APISERVER_VERSION environment
	// variable, or DefaultVersion. Each version is built once into the
	// cache.
	Version string

	// APIServerFlags are appended to kube-apiserver's command line, after the
	// defaults, so they override them (e.g. "--watch-cache=false",
	// "--feature-gates=WatchList=false").
	APIServerFlags []string

	// EtcdEndpoint, when set, is an etcd client URL to use instead of
	// starting an etcd.
	EtcdEndpoint string

	// StaticTokens are written to kube-apiserver's --token-auth-file.
	StaticTokens []StaticToken

	// StartTimeout bounds the wait for each process to become ready, not
	// counting a first build of the binaries. Zero means 90 seconds.
	StartTimeout time.Duration

	// StopGrace is how long APIServer.Stop waits after SIGTERM before
	// SIGKILL. Zero means 3 seconds.
	StopGrace time.Duration

	// Logger receives what happens (notably the start and end of a first
	// build, at info level). Nil means the kubego default: warnings to
	// slog.Default(), the rest nowhere.
	Logger *slog.Logger

	// BuildProgress, when set, follows a first build of the binaries (see
	// BuildOptions.Progress and ProgressPrinter).
	BuildProgress func(BuildProgress)

	// Output, when set, receives the raw output of both processes.
	Output io.Writer

	// KubeletCA, when set, is the PEM CA that signs kubelets' serving
	// certificates: kube-apiserver trusts it for its connections to
	// kubelets (exec, attach, port-forward, logs) and reaches a Node by its
	// InternalIP. Test kubelets (package kubeletstub) need it.
	KubeletCA []byte

	// CRDPaths are YAML or JSON files and directories of
	// CustomResourceDefinitions that Start installs once kube-apiserver is
	// ready, returning when they are served (see InstallCRDs).
	CRDPaths []string
}

// StaticToken is one line of kube-apiserver's token-auth file: a bearer token
// that authenticates as User.
type StaticToken struct {
	Token  string
	User   string
	UID    string
	Groups []string
}

// ControlPlane is a running etcd plus kube-apiserver. Its methods are safe
// for concurrent use.
type ControlPlane struct {
	opts Options
	bins Binaries
	dir  string
	pki  *pki
	log  *slog.Logger

	etcd         *process // nil when Options.EtcdEndpoint is used
	etcdEndpoint string
	etcdPeerPort int
	etcdData     string

	mu        sync.Mutex
	apiServer *APIServer
	extra     []*APIServer
	stopped   bool
}

// Start builds the binaries if needed and starts a control plane. On error
// everything it started is stopped again and the error says why, with the
// processes' last output (*StartError, *BuildError).
func Start(ctx context.Context, opts Options) (*ControlPlane, error) {
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 90 * time.Second
	}
	if opts.StopGrace <= 0 {
		opts.StopGrace = 3 * time.Second
	}
	log := opts.Logger
	log = defaultlog.Or(log)
	version, err := resolveVersion(opts.Version)
	if err != nil {
		return nil, err
	}
	opts.Version = version
	bins, err := EnsureBinaries(ctx, BuildOptions{Version: version, Logger: log, Progress: opts.BuildProgress})
	if err != nil {
		return nil, err
	}
	sweepStale(os.TempDir())
	dir, err := os.MkdirTemp("", tempPrefix)
	if err != nil {
		return nil, fmt.Errorf("testenv: %w", err)
	}
	if err := writeOwner(dir); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("testenv: %w", err)
	}
	cp := &ControlPlane{opts: opts, bins: bins, dir: dir, log: log}
	ok := false
	defer func() {
		if !ok {
			cp.Stop()
		}
	}()
	if cp.pki, err = newPKI(dir); err != nil {
		return nil, fmt.Errorf("testenv: generating certificates: %w", err)
	}
	if len(opts.StaticTokens) > 0 {
		if err := cp.writeTokenFile(); err != nil {
			return nil, err
		}
	}
	if len(opts.KubeletCA) > 0 {
		if err := os.WriteFile(cp.kubeletCAFile(), opts.KubeletCA, 0o600); err != nil {
			return nil, fmt.Errorf("testenv: %w", err)
		}
	}
	if opts.EtcdEndpoint != "" {
		cp.etcdEndpoint = opts.EtcdEndpoint
	} else if err := cp.startEtcd(ctx); err != nil {
		return nil, err
	}
	as, err := cp.newAPIServer(ctx, opts.APIServerFlags)
	if err != nil {
		return nil, err
	}
	cp.apiServer = as
	if len(opts.CRDPaths) > 0 {
		if err := cp.InstallCRDs(ctx, opts.CRDPaths...); err != nil {
			return nil, err
		}
	}
	ok = true
	return cp, nil
}

func (cp *ControlPlane) writeTokenFile() error {
	var b strings.Builder
	for _, t := range cp.opts.StaticTokens {
		if t.Token == "" || t.User == "" || strings.ContainsAny(t.Token+t.User+t.UID, ",\"\n") {
			return fmt.Errorf("testenv: static token for user %q: token and user must be set and contain no comma, quote or newline", t.User)
		}
		uid := t.UID
		if uid == "" {
			uid = t.User
		}
		fmt.Fprintf(&b, "%s,%s,%s", t.Token, t.User, uid)
		if len(t.Groups) > 0 {
			fmt.Fprintf(&b, ",\"%s\"", strings.Join(t.Groups, ","))
		}
		b.WriteByte('\n')
	}
	return os.WriteFile(cp.tokenFile(), []byte(b.String()), 0o600)
}

func (cp *ControlPlane) tokenFile() string { return cp.dir + "/tokens.csv" }

func (cp *ControlPlane) kubeletCAFile() string { return cp.dir + "/kubelet-ca.crt" }

func (cp *ControlPlane) startEtcd(ctx context.Context) error {
	clientPort, err := freePort()
	if err != nil {
		return err
	}
	peerPort, err := freePort()
	if err != nil {
		return err
	}
	cp.etcdEndpoint = "http://127.0.0.1:" + strconv.Itoa(clientPort)
	cp.etcdPeerPort = peerPort
	cp.etcdData = cp.dir + "/etcd"
	peer := "http://127.0.0.1:" + strconv.Itoa(peerPort)
	args := []string{
		"--name", "kubego-testenv",
		"--data-dir", cp.etcdData,
		"--listen-client-urls", cp.etcdEndpoint,
		"--advertise-client-urls", cp.etcdEndpoint,
		"--listen-peer-urls", peer,
		"--initial-advertise-peer-urls", peer,
		"--initial-cluster", "kubego-testenv=" + peer,
		"--unsafe-no-fsync",
		"--log-level", "warn",
	}
	p, err := startProcess("etcd", cp.bins.Etcd, args, cp.opts.Output)
	if err != nil {
		return err
	}
	cp.etcd = p
	cp.log.Debug("testenv: etcd started", "endpoint", cp.etcdEndpoint)
	client := &http.Client{Timeout: 2 * time.Second}
	err = waitReady(ctx, p, cp.opts.StartTimeout, func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, cp.etcdEndpoint+"/health", nil)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/health answered %d", resp.StatusCode)
		}
		return nil
	})
	if err != nil {
		return p.startError(err)
	}
	return nil
}

// waitReady polls check until it succeeds, the process exits, the timeout
// passes or ctx ends.
func waitReady(ctx context.Context, p *process, timeout time.Duration, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		if err := check(ctx); err == nil {
			return nil
		} else {
			last = err
		}
		select {
		case <-p.done:
			return fmt.Errorf("%w: last readiness check: %v", ErrExited, last)
		case <-ctx.Done():
			return fmt.Errorf("not ready after %s: %w (last check: %v)", timeout, ctx.Err(), last)
		case <-tick.C:
		}
	}
}

// EtcdEndpoint is the client URL of the etcd this control plane stores in.
func (cp *ControlPlane) EtcdEndpoint() string { return cp.etcdEndpoint }

// APIServer returns the first kube-apiserver.
func (cp *ControlPlane) APIServer() *APIServer {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return cp.apiServer
}

// Config returns a new admin *rest.Config (client certificate in group
// system:masters) for the first kube-apiserver. The caller may modify it.
func (cp *ControlPlane) Config() *rest.Config { return cp.APIServer().Config() }

// Version returns the kube-apiserver minor version running ("1.37"), as
// chosen by Options.Version or the environment. With
// KUBEGO_CONTROLPLANE_BIN it is what was asked for, not checked against
// the binary.
func (cp *ControlPlane) Version() string { return cp.opts.Version }

// TokenConfig returns a *rest.Config for the first kube-apiserver that
// authenticates with the bearer token (typically one of Options.StaticTokens)
// instead of the admin certificate.
func (cp *ControlPlane) TokenConfig(token string) *rest.Config {
	c := cp.Config()
	c.TLS.CertData, c.TLS.KeyData = nil, nil
	c.BearerToken = token
	return c
}

// CAData returns the PEM of the cluster CA, which signs the serving and admin
// certificates and is the client CA of kube-apiserver.
func (cp *ControlPlane) CAData() []byte { return append([]byte(nil), cp.pki.caPEM...) }

// StartAPIServer starts one more kube-apiserver on the same etcd (and with the
// same certificates and service-account keys), on a new port, with the
// control plane's flags plus extra. It is stopped with the control plane.
func (cp *ControlPlane) StartAPIServer(ctx context.Context, extra ...string) (*APIServer, error) {
	flags := append(append([]string(nil), cp.opts.APIServerFlags...), extra...)
	as, err := cp.newAPIServer(ctx, flags)
	if err != nil {
		return nil, err
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.stopped {
		as.Stop()
		return nil, errors.New("testenv: control plane stopped")
	}
	cp.extra = append(cp.extra, as)
	return as, nil
}

// Stop stops every kube-apiserver, then etcd, and removes the temporary
// directory. It is idempotent and safe to call on a partly started plane.
func (cp *ControlPlane) Stop() error {
	cp.mu.Lock()
	if cp.stopped {
		cp.mu.Unlock()
		return nil
	}
	cp.stopped = true
	servers := append([]*APIServer{cp.apiServer}, cp.extra...)
	cp.mu.Unlock()
	var wg sync.WaitGroup
	for _, as := range servers {
		if as != nil {
			wg.Go(func() { as.Stop() })
		}
	}
	wg.Wait()
	cp.etcd.stop(5 * time.Second)
	if err := os.RemoveAll(cp.dir); err != nil {
		return fmt.Errorf("testenv: removing %s: %w", cp.dir, err)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("testenv: finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// adminHTTPClient is a plain HTTP client with the admin identity, used for
// readiness checks so that testenv does not depend on the rest client.
func (cp *ControlPlane) adminHTTPClient() (*http.Client, error) {
	cert, err := tls.X509KeyPair(cp.pki.adminCertPEM, cp.pki.adminKeyPEM)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(cp.pki.caPEM)
	return &http.Client{
		Timeout: 5 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}},
			DisableKeepAlives: true,
		},
	}, nil
}
