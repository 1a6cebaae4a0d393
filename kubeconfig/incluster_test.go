package kubeconfig_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/rest"
)

func saDir(t *testing.T, files map[string]string) string {
	dir := t.TempDir()
	for name, content := range files {
		writeConfig(t, filepath.Join(dir, name), content)
	}
	return dir
}

func TestInCluster(t *testing.T) {
	ca := string(read(t, "testdata/pki/ca.crt"))
	full := map[string]string{"ca.crt": ca, "token": "sa-token\n", "namespace": "team\n"}
	inCluster := map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}
	tests := []struct {
		name    string
		env     map[string]string
		files   map[string]string
		ov      kubeconfig.Overrides
		host    string
		ns      string
		wantErr error
	}{
		{"service account directory and env", inCluster, full, kubeconfig.Overrides{}, "https://10.96.0.1:443", "team", nil},
		{"IPv6 service host is bracketed", map[string]string{"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"}, full, kubeconfig.Overrides{}, "https://[fd00::1]:443", "team", nil},
		{"namespace file missing means default", inCluster, map[string]string{"ca.crt": ca, "token": "t"}, kubeconfig.Overrides{}, "https://10.96.0.1:443", "default", nil},
		{"overrides for server and namespace", inCluster, full, kubeconfig.Overrides{Server: "https://kubernetes.default.svc", Namespace: "other"}, "https://kubernetes.default.svc", "other", nil},
		{"missing ca.crt fails closed", inCluster, map[string]string{"token": "t"}, kubeconfig.Overrides{}, "", "", kubeconfig.ErrMissingCA},
		{"ca.crt that is not PEM", inCluster, map[string]string{"ca.crt": "junk", "token": "t"}, kubeconfig.Overrides{}, "", "", kubeconfig.ErrInvalidCA},
		{"missing token", inCluster, map[string]string{"ca.crt": ca}, kubeconfig.Overrides{}, "", "", os.ErrNotExist},
		{"empty token", inCluster, map[string]string{"ca.crt": ca, "token": "\n"}, kubeconfig.Overrides{}, "", "", rest.ErrEmptyTokenFile},
		{"no env", map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1"}, full, kubeconfig.Overrides{}, "", "", kubeconfig.ErrNotInCluster},
		{"bad port", map[string]string{"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "http"}, full, kubeconfig.Overrides{}, "", "", kubeconfig.ErrInvalidServer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := saDir(t, tt.files)
			cc, err := kubeconfig.InCluster(kubeconfig.Options{Getenv: env(tt.env), ServiceAccountDir: dir, Overrides: tt.ov})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				var ke *kubeconfig.Error
				if !errors.As(err, &ke) {
					t.Fatalf("%T is not *Error", err)
				}
				return
			}
			c := cc.Config
			if c.Host != tt.host || cc.Namespace != tt.ns || !cc.InCluster {
				t.Fatalf("host %q ns %q incluster %v", c.Host, cc.Namespace, cc.InCluster)
			}
			if c.TLS.CAFile != filepath.Join(dir, "ca.crt") || c.BearerTokenFile != filepath.Join(dir, "token") || c.TLS.Insecure {
				t.Fatalf("tls %+v token file %q", c.TLS, c.BearerTokenFile)
			}
			if c.Auth != nil {
				t.Fatalf("Auth is %T; the token file must be set only as BearerTokenFile", c.Auth)
			}
			if _, err := rest.NewClient(c); err != nil {
				t.Fatalf("NewClient: %v", err)
			}
		})
	}
}
