package kubeconfig_test

import (
	"bufio"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kubego/kubego/auth"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/rest"
)

// apiServer is a TLS server that answers GET /api for the bearer token
// "shared-token" and counts the TCP connections it accepts.
func apiServer(t *testing.T) (srv *httptest.Server, conns *atomic.Int32) {
	t.Helper()
	conns = new(atomic.Int32)
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer shared-token" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"kind":"APIVersions","versions":["v1"]}`)
	}))
	srv.EnableHTTP2 = true
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, conns
}

// connectProxy is an HTTP CONNECT proxy that counts the tunnels it opens.
func connectProxy(t *testing.T) (url string, tunnels *atomic.Int32) {
	t.Helper()
	tunnels = new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
			return
		}
		upstream, err := net.Dial("tcp", r.Host)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		tunnels.Add(1)
		w.WriteHeader(http.StatusOK)
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			upstream.Close()
			return
		}
		go func() {
			defer upstream.Close()
			defer conn.Close()
			go func() { _, _ = io.Copy(upstream, rw) }()
			_, _ = io.Copy(conn, upstream)
		}()
	}))
	t.Cleanup(srv.Close)
	return srv.URL, tunnels
}

// execPlugin writes a plugin that appends a line to a file at each run and
// prints a credential with the token "shared-token".
func execPlugin(t *testing.T, dir string) (command, runsFile string) {
	t.Helper()
	runsFile = filepath.Join(dir, "runs")
	command = filepath.Join(dir, "login.sh")
	script := "#!/bin/sh\necho run >> '" + runsFile + "'\n" +
		`echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"shared-token"}}'` + "\n"
	if err := os.WriteFile(command, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return command, runsFile
}

func lines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for s := bufio.NewScanner(f); s.Scan(); {
		n++
	}
	return n
}

// Clients built one by one from a kubeconfig whose user is an exec plugin,
// or whose cluster has a proxy-url, share one connection pool per cluster,
// and the plugin runs once for all of them.
func TestClientsFromOneKubeconfigShareConnections(t *testing.T) {
	const clients = 100
	tests := []struct {
		name      string
		viaProxy  bool
		wantRuns  int
		wantConns int32
	}{
		{name: "exec plugin", wantRuns: 1, wantConns: 2},
		{name: "exec plugin through a proxy-url", viaProxy: true, wantRuns: 1, wantConns: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, conns := apiServer(t)
			dir := t.TempDir()
			command, runsFile := execPlugin(t, dir)
			ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
			if err := os.WriteFile(filepath.Join(dir, "ca.crt"), ca, 0o600); err != nil {
				t.Fatal(err)
			}
			proxyLine, tunnels := "", (*atomic.Int32)(nil)
			if tt.viaProxy {
				var u string
				u, tunnels = connectProxy(t)
				proxyLine = ", proxy-url: " + u
			}
			kc := fmt.Sprintf("current-context: c\ncontexts: [{name: c, context: {cluster: c, user: c}}]\n"+
				"clusters: [{name: c, cluster: {server: %q, certificate-authority: ca.crt%s}}]\n"+
				"users: [{name: c, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: %q, interactiveMode: Never}}}]\n",
				srv.URL, proxyLine, command)
			path := filepath.Join(dir, "config")
			if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
				t.Fatal(err)
			}

			rcs := make([]*rest.Client, clients)
			for i := range rcs {
				cc, err := kubeconfig.Load(kubeconfig.Options{Path: path, Getenv: func(string) string { return "" }})
				if err != nil {
					t.Fatal(err)
				}
				if rcs[i], err = rest.NewClient(cc.Config); err != nil {
					t.Fatal(err)
				}
			}
			// The first request opens the connection (an HTTP/2 one is
			// known only after its TLS handshake); then all clients at once.
			if _, err := rcs[0].Get().AbsPath("/api").DoRaw(t.Context()); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make(chan error, clients)
			for _, rc := range rcs {
				wg.Go(func() {
					if _, err := rc.Get().AbsPath("/api").DoRaw(t.Context()); err != nil {
						errs <- err
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if got := lines(t, runsFile); got != tt.wantRuns {
				t.Errorf("the exec plugin ran %d times for %d clients, want %d", got, clients, tt.wantRuns)
			}
			if got := conns.Load(); got > tt.wantConns {
				t.Errorf("%d clients opened %d connections, want at most %d", clients, got, tt.wantConns)
			}
			if tunnels != nil && tunnels.Load() > tt.wantConns {
				t.Errorf("%d clients opened %d proxy tunnels, want at most %d", clients, tunnels.Load(), tt.wantConns)
			}
			runtime.KeepAlive(rcs)
		})
	}
}

// A program that gives its own Runner (or Terminal, Environ, Clock) gets an
// exec plugin of its own: funcs cannot be compared.
func TestExecWithCustomOptionsIsNotShared(t *testing.T) {
	dir := t.TempDir()
	command, _ := execPlugin(t, dir)
	kc := fmt.Sprintf("current-context: c\ncontexts: [{name: c, context: {cluster: c, user: c}}]\n"+
		"clusters: [{name: c, cluster: {server: https://127.0.0.1:1, insecure-skip-tls-verify: true}}]\n"+
		"users: [{name: c, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: %q, interactiveMode: Never}}}]\n", command)
	path := filepath.Join(dir, "config")
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	load := func(opts kubeconfig.Options) rest.Authenticator {
		t.Helper()
		opts.Path = path
		cc, err := kubeconfig.Load(opts)
		if err != nil {
			t.Fatal(err)
		}
		return cc.Config.Auth
	}
	a, b := load(kubeconfig.Options{}), load(kubeconfig.Options{})
	if a != b {
		t.Error("two loads with default options got different exec plugins")
	}
	environ := func() []string { return nil }
	c := load(kubeconfig.Options{Exec: auth.ExecOptions{Environ: environ}})
	if c == a {
		t.Error("a load with its own Environ shares the default exec plugin")
	}
	if !strings.Contains(fmt.Sprint(c), "login.sh") {
		t.Errorf("unexpected authenticator %v", c)
	}
}

// BenchmarkClientFromExecKubeconfig is the cost of one more client built
// from a kubeconfig whose user is an exec plugin, once one exists: loading
// the file and building the rest client (the plugin and the connection
// pool are shared).
func BenchmarkClientFromExecKubeconfig(b *testing.B) {
	dir := b.TempDir()
	command := filepath.Join(dir, "login.sh")
	if err := os.WriteFile(command, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	kc := fmt.Sprintf("current-context: c\ncontexts: [{name: c, context: {cluster: c, user: c}}]\n"+
		"clusters: [{name: c, cluster: {server: https://127.0.0.1:6443, insecure-skip-tls-verify: true}}]\n"+
		"users: [{name: c, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: %q, interactiveMode: Never}}}]\n", command)
	path := filepath.Join(dir, "config")
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		b.Fatal(err)
	}
	keep := make([]*rest.Client, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		cc, err := kubeconfig.Load(kubeconfig.Options{Path: path, Getenv: func(string) string { return "" }})
		if err != nil {
			b.Fatal(err)
		}
		rc, err := rest.NewClient(cc.Config)
		if err != nil {
			b.Fatal(err)
		}
		if len(keep) < cap(keep) {
			keep = append(keep, rc)
		}
	}
	runtime.KeepAlive(keep)
}
