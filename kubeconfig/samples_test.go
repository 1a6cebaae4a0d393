package kubeconfig_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kubego/kubego/auth"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/rest"
)

func abs(t testing.TB, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func read(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// want describes the expected rest.Config of a sample, field by field.
type want struct {
	host, serverName, caFile, certFile, keyFile     string
	caData, certData, keyData                       bool // set from the file
	insecure                                        bool
	token, tokenFile, username, password, namespace string
	context                                         string
	proxy                                           string
	getCert                                         bool
	auth                                            any // type of cfg.Auth, nil for none
	impersonate                                     string
	groups                                          []string
	extra                                           map[string][]string
	uid                                             string
}

func TestSamplesLoadToExpectedConfig(t *testing.T) {
	ca := read(t, "testdata/pki/ca.crt")
	crt := read(t, "testdata/pki/client.crt")
	key := read(t, "testdata/pki/client.key")
	tests := []struct {
		name string
		file string
		ov   kubeconfig.Overrides
		want want
	}{
		{"kind writes inline data", "testdata/kind.yaml", kubeconfig.Overrides{}, want{
			host: "https://127.0.0.1:41235", caData: true, certData: true, keyData: true,
			namespace: "default", context: "kind-kind"}},
		{"minikube writes file paths, resolved against the file", "testdata/minikube.yaml", kubeconfig.Overrides{}, want{
			host: "https://192.168.49.2:8443", caFile: abs(t, "testdata/pki/ca.crt"),
			certFile: abs(t, "testdata/pki/client.crt"), keyFile: abs(t, "testdata/pki/client.key"), getCert: true,
			namespace: "default", context: "minikube"}},
		{"kubectl token user with proxy, tls-server-name and path prefix", "testdata/kubectl.yaml", kubeconfig.Overrides{}, want{
			host: "https://prod.example.com:6443/k8s", serverName: "api.prod.internal", caData: true,
			token: "deployer-token-value", proxy: "http://proxy.example.com:3128", namespace: "payments", context: "prod"}},
		{"kubectl basic auth, insecure, IPv6 literal", "testdata/kubectl.yaml", kubeconfig.Overrides{Context: "local6"}, want{
			host: "https://[::1]:6443", insecure: true, username: "admin", password: "admin-password-value",
			namespace: "default", context: "local6"}},
		{"kubectl exec plugin with cluster info", "testdata/kubectl.yaml", kubeconfig.Overrides{Context: "eks"}, want{
			host: "https://eks.example.com", caData: true, auth: &auth.Exec{}, getCert: true,
			namespace: "team-a", context: "eks"}},
		{"kubectl token file and impersonation, unknown field ignored", "testdata/kubectl.yaml", kubeconfig.Overrides{Context: "prod-as-ops"}, want{
			host: "https://prod.example.com:6443/k8s", serverName: "api.prod.internal", caData: true, proxy: "http://proxy.example.com:3128",
			tokenFile: abs(t, "testdata/tokens/ops"), impersonate: "jane", uid: "1234",
			groups: []string{"devs", "ops"}, extra: map[string][]string{"reason": {"incident-42"}},
			namespace: "default", context: "prod-as-ops"}},
		{"overrides replace server, namespace, user and cluster", "testdata/kubectl.yaml", kubeconfig.Overrides{
			Context: "prod", Cluster: "local6", User: "admin", Server: "https://override.example.com:443", Namespace: "ns2"}, want{
			host: "https://override.example.com:443", insecure: true, username: "admin", password: "admin-password-value",
			namespace: "ns2", context: "prod"}},
		{"JSON kubeconfig, server without scheme, mixed file and data key", "testdata/kubectl.json", kubeconfig.Overrides{}, want{
			host: "https://localhost:8443", insecure: true, certData: true, keyData: true, namespace: "json-ns", context: "ctx"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc, err := kubeconfig.Load(kubeconfig.Options{Path: tt.file, Overrides: tt.ov})
			if err != nil {
				t.Fatal(err)
			}
			c, w := cc.Config, tt.want
			check := func(name string, got, want any) {
				t.Helper()
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %v, want %v", name, got, want)
				}
			}
			check("Host", c.Host, w.host)
			check("TLS.ServerName", c.TLS.ServerName, w.serverName)
			check("TLS.Insecure", c.TLS.Insecure, w.insecure)
			check("TLS.CAFile", c.TLS.CAFile, w.caFile)
			check("TLS.CertFile", c.TLS.CertFile, w.certFile)
			check("TLS.KeyFile", c.TLS.KeyFile, w.keyFile)
			check("TLS.CAData", string(c.TLS.CAData), map[bool]string{true: string(ca)}[w.caData])
			check("TLS.CertData", string(c.TLS.CertData), map[bool]string{true: string(crt)}[w.certData])
			check("TLS.KeyData", string(c.TLS.KeyData), map[bool]string{true: string(key)}[w.keyData])
			check("TLS.ClientCertificates set", c.TLS.ClientCertificates != nil, w.getCert)
			check("BearerToken", c.BearerToken, w.token)
			check("BearerTokenFile", c.BearerTokenFile, w.tokenFile)
			check("Username", c.Username, w.username)
			check("Password", c.Password, w.password)
			check("Namespace", cc.Namespace, w.namespace)
			check("Context", cc.Context, w.context)
			check("Impersonate.UserName", c.Impersonate.UserName, w.impersonate)
			check("Impersonate.UID", c.Impersonate.UID, w.uid)
			check("Impersonate.Groups", c.Impersonate.Groups, w.groups)
			check("Impersonate.Extra", c.Impersonate.Extra, w.extra)
			check("Auth type", reflect.TypeOf(c.Auth), reflect.TypeOf(w.auth))
			proxy := ""
			if c.Proxy != nil {
				t.Error("kubeconfig set a Proxy func; a proxy-url belongs in ProxyURL")
			}
			if c.ProxyURL != nil {
				proxy = c.ProxyURL.String()
			}
			check("ProxyURL", proxy, w.proxy)
			if _, err := rest.NewClient(c); err != nil {
				t.Errorf("rest.NewClient refuses the config: %v", err)
			}
			if len(cc.Files) != 1 || cc.Files[0] != abs(t, tt.file) {
				t.Errorf("Files = %v", cc.Files)
			}
		})
	}
}
