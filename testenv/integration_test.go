package testenv_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// get does a GET with a plain HTTP client built from cfg, so these tests do
// not depend on the rest package's client.
func get(t *testing.T, cfg *rest.Config, path string) (int, string) {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(cfg.TLS.CAData)
	tc := &tls.Config{RootCAs: pool}
	if len(cfg.TLS.CertData) > 0 {
		cert, err := tls.X509KeyPair(cfg.TLS.CertData, cfg.TLS.KeyData)
		if err != nil {
			t.Fatal(err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: tc, DisableKeepAlives: true}}
	req, _ := http.NewRequest(http.MethodGet, cfg.Host+path, nil)
	if cfg.BearerToken != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.BearerToken)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestSharedControlPlaneServesTheAPI(t *testing.T) {
	cp := testenv.Shared(t)
	code, body := get(t, cp.Config(), "/api/v1/namespaces")
	if code != http.StatusOK || !strings.Contains(body, `"kube-system"`) {
		t.Fatalf("GET namespaces: %d %s", code, body)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := cp.WriteKubeconfig(path); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("kubeconfig: %v, mode %v; want 0600", err, st.Mode())
	}
	// The written file loads through kubeconfig and reaches the server.
	cc, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if cc.Context != testenv.KubeconfigContext || cc.Namespace != "default" {
		t.Fatalf("context %q namespace %q", cc.Context, cc.Namespace)
	}
	if code, body := get(t, cc.Config, "/api/v1/namespaces/default"); code != http.StatusOK {
		t.Fatalf("through the written kubeconfig: %d %s", code, body)
	}
}

func TestControlPlaneLifecycle(t *testing.T) {
	cp := testenv.StartForTest(t, testenv.Options{
		APIServerFlags: []string{"--watch-cache=false"},
		StaticTokens:   []testenv.StaticToken{{Token: "s3cret-token", User: "alice", Groups: []string{"devs"}}},
	})
	ctx := context.Background()

	t.Run("static token authenticates", func(t *testing.T) {
		code, body := get(t, cp.TokenConfig("s3cret-token"), "/apis/authentication.k8s.io/v1")
		if code != http.StatusOK {
			t.Fatalf("got %d %s", code, body)
		}
		// alice has no RBAC grants: she is known but forbidden.
		if code, _ := get(t, cp.TokenConfig("s3cret-token"), "/api/v1/secrets"); code != http.StatusForbidden {
			t.Fatalf("alice listing secrets: %d, want 403", code)
		}
		if code, _ := get(t, cp.TokenConfig("wrong"), "/api/v1/secrets"); code != http.StatusUnauthorized {
			t.Fatalf("wrong token: %d, want 401", code)
		}
	})

	t.Run("second apiserver shares etcd", func(t *testing.T) {
		second, err := cp.StartAPIServer(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer second.Stop()
		if second.Port() == cp.APIServer().Port() {
			t.Fatal("second apiserver must listen on its own port")
		}
		if code, body := get(t, second.Config(), "/api/v1/namespaces/kube-system"); code != http.StatusOK {
			t.Fatalf("second apiserver: %d %s", code, body)
		}
	})

	t.Run("restart after kill keeps the port", func(t *testing.T) {
		as := cp.APIServer()
		port := as.Port()
		as.Kill()
		if as.Running() {
			t.Fatal("killed apiserver still running")
		}
		if err := as.Restart(ctx); err != nil {
			t.Fatal(err)
		}
		if as.Port() != port {
			t.Fatalf("port changed from %d to %d", port, as.Port())
		}
		if code, body := get(t, cp.Config(), "/readyz"); code != http.StatusOK {
			t.Fatalf("after restart: %d %s", code, body)
		}
	})

	t.Run("stop leaves no process", func(t *testing.T) {
		as := cp.APIServer()
		if err := cp.Stop(); err != nil {
			t.Fatal(err)
		}
		if as.Running() {
			t.Fatal("apiserver still running after Stop")
		}
		for _, addr := range []string{strings.TrimPrefix(as.URL(), "https://"), strings.TrimPrefix(cp.EtcdEndpoint(), "http://")} {
			if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
				c.Close()
				t.Errorf("%s still accepts connections after Stop", addr)
			}
		}
	})
}

// The control plane runs the kube-apiserver version it says it runs (the
// default, or the one KUBEGO_APISERVER_VERSION chose).
func TestSharedControlPlaneRunsItsVersion(t *testing.T) {
	cp := testenv.Shared(t)
	code, body := get(t, cp.Config(), "/version")
	if code != http.StatusOK {
		t.Fatalf("GET /version: %d %s", code, body)
	}
	// The build is stamped like a release's.
	minor := strings.TrimPrefix(cp.Version(), "1.")
	for _, want := range []string{`"minor": "` + minor + `"`, `"gitVersion": "v` + cp.Version() + `.`, `"gitTreeState": "clean"`} {
		if !strings.Contains(body, want) {
			t.Fatalf("GET /version = %s, want %s", body, want)
		}
	}
}
