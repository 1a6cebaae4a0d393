package kubeconfig_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubego/kubego/kubeconfig"
)

func writeConfig(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestKUBECONFIGMergeFirstFileWins(t *testing.T) {
	dir := t.TempDir()
	a := writeConfig(t, filepath.Join(dir, "a"), `
clusters:
- {name: shared, cluster: {server: "https://from-a:1"}}
contexts:
- {name: ctx-a, context: {cluster: shared, namespace: ns-a}}
users:
- {name: u, user: {token: from-a}}
`)
	b := writeConfig(t, filepath.Join(dir, "b"), `
current-context: ctx-b
clusters:
- {name: shared, cluster: {server: "https://from-b:1"}}
- {name: only-b, cluster: {server: "https://only-b:1"}}
contexts:
- {name: ctx-b, context: {cluster: only-b, user: u, namespace: ns-b}}
- {name: ctx-a, context: {cluster: only-b}}
users:
- {name: u, user: {token: from-b}}
`)
	c := writeConfig(t, filepath.Join(dir, "c"), "current-context: ctx-a\n")
	missing := filepath.Join(dir, "missing")
	list := strings.Join([]string{missing, a, "", b, a, c}, string(filepath.ListSeparator))

	cc, err := kubeconfig.Load(kubeconfig.Options{Getenv: env(map[string]string{"KUBECONFIG": list}), DisableInCluster: true})
	if err != nil {
		t.Fatal(err)
	}
	// current-context from b (the first file setting it), context ctx-b from
	// b, cluster only-b, user u from a (first wins).
	if cc.Context != "ctx-b" || cc.Config.Host != "https://only-b:1" || cc.Config.BearerToken != "from-a" || cc.Namespace != "ns-b" {
		t.Fatalf("got context %q host %q token %q ns %q", cc.Context, cc.Config.Host, cc.Config.BearerToken, cc.Namespace)
	}
	if got := strings.Join(cc.Files, ","); got != strings.Join([]string{a, b, c}, ",") {
		t.Fatalf("Files = %s", got)
	}
	cc, err = kubeconfig.Load(kubeconfig.Options{Getenv: env(map[string]string{"KUBECONFIG": list}), Overrides: kubeconfig.Overrides{Context: "ctx-a"}})
	if err != nil {
		t.Fatal(err)
	}
	if cc.Config.Host != "https://from-a:1" || cc.Namespace != "ns-a" {
		t.Fatalf("ctx-a: host %q ns %q; want a's context and cluster", cc.Config.Host, cc.Namespace)
	}
}

func TestKUBECONFIGWithABrokenFileFails(t *testing.T) {
	dir := t.TempDir()
	good := writeConfig(t, filepath.Join(dir, "good"), "current-context: x\n")
	bad := writeConfig(t, filepath.Join(dir, "bad"), "clusters: [")
	_, err := kubeconfig.Load(kubeconfig.Options{Getenv: env(map[string]string{"KUBECONFIG": good + string(filepath.ListSeparator) + bad})})
	var ke *kubeconfig.Error
	if !errors.Is(err, kubeconfig.ErrSyntax) || !errors.As(err, &ke) || ke.File != bad {
		t.Fatalf("err = %v, want ErrSyntax naming %s", err, bad)
	}
}

const homeConfig = "current-context: h\ncontexts: [{name: h, context: {cluster: h}}]\nclusters: [{name: h, cluster: {server: \"https://home:1\"}}]\n"

func TestLoadOrder(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	writeConfig(t, filepath.Join(home, ".kube", "config"), homeConfig)
	explicit := writeConfig(t, filepath.Join(dir, "explicit"), strings.ReplaceAll(homeConfig, "home", "explicit"))
	fromEnv := writeConfig(t, filepath.Join(dir, "env"), strings.ReplaceAll(homeConfig, "home", "env"))
	sa := abs(t, "testdata/serviceaccount")
	inCluster := map[string]string{"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}
	withEnv := func(m map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for k, v := range m {
			out[k] = v
		}
		return out
	}

	tests := []struct {
		name    string
		opts    kubeconfig.Options
		want    string
		wantErr error
	}{
		{"explicit path wins over everything", kubeconfig.Options{Path: explicit, Getenv: env(withEnv(inCluster, "KUBECONFIG", fromEnv))}, "https://explicit:1", nil},
		{"explicit path missing is an error", kubeconfig.Options{Path: filepath.Join(dir, "nope"), Getenv: env(inCluster)}, "", os.ErrNotExist},
		{"KUBECONFIG wins over in-cluster and home", kubeconfig.Options{Getenv: env(withEnv(inCluster, "KUBECONFIG", fromEnv))}, "https://env:1", nil},
		{"in-cluster wins over home", kubeconfig.Options{Getenv: env(inCluster)}, "https://10.0.0.1:443", nil},
		{"KUBECONFIG all missing falls to in-cluster", kubeconfig.Options{Getenv: env(withEnv(inCluster, "KUBECONFIG", filepath.Join(dir, "nope")))}, "https://10.0.0.1:443", nil},
		{"KUBECONFIG all missing and not in cluster: no home fallback", kubeconfig.Options{Getenv: env(map[string]string{"KUBECONFIG": filepath.Join(dir, "nope")})}, "", kubeconfig.ErrNoConfig},
		{"context override skips in-cluster", kubeconfig.Options{Getenv: env(inCluster), Overrides: kubeconfig.Overrides{Context: "h"}}, "https://home:1", nil},
		{"DisableInCluster skips in-cluster", kubeconfig.Options{Getenv: env(inCluster), DisableInCluster: true}, "https://home:1", nil},
		{"home config last", kubeconfig.Options{Getenv: env(nil)}, "https://home:1", nil},
		{"nothing anywhere", kubeconfig.Options{Getenv: env(nil), HomeDir: filepath.Join(dir, "empty-home")}, "", kubeconfig.ErrNoConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.ServiceAccountDir = sa
			if tt.opts.HomeDir == "" {
				tt.opts.HomeDir = home
			}
			cc, err := kubeconfig.Load(tt.opts)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err == nil && cc.Config.Host != tt.want {
				t.Fatalf("host = %q, want %q", cc.Config.Host, tt.want)
			}
		})
	}
}

func TestServerOverrideWithoutContext(t *testing.T) {
	f, err := kubeconfig.Parse([]byte("users: [{name: u, user: {token: t}}]"), "")
	if err != nil {
		t.Fatal(err)
	}
	cc, err := f.ClientConfig(kubeconfig.Options{Overrides: kubeconfig.Overrides{Server: "https://s:1", User: "u"}})
	if err != nil {
		t.Fatal(err)
	}
	if cc.Config.Host != "https://s:1" || cc.Config.BearerToken != "t" {
		t.Fatalf("got %q %q", cc.Config.Host, cc.Config.BearerToken)
	}
}

func TestAllowInsecureAuthPermitsPlainHTTP(t *testing.T) {
	f, err := kubeconfig.Parse([]byte(kc("    server: http://127.0.0.1:8080\n", "    token: t\n")), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ClientConfig(kubeconfig.Options{}); !errors.Is(err, kubeconfig.ErrInsecureAuth) {
		t.Fatalf("err = %v, want ErrInsecureAuth", err)
	}
	cc, err := f.ClientConfig(kubeconfig.Options{AllowInsecureAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	if !cc.Config.AllowInsecureAuth || cc.Config.BearerToken != "t" {
		t.Fatalf("config %v", cc.Config)
	}
}
