package kubeconfig_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubego/kubego/kubeconfig"
)

// secrets are planted in the bad inputs; no error may contain them.
var secrets = []string{"tok-SECRET-1", "pw-SECRET-2", "env-SECRET-3"}

// kc builds a one-context kubeconfig with the given cluster and user
// bodies (YAML, indented by the caller).
func kc(cluster, user string) string {
	return "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: cl, user: u}\n" +
		"clusters:\n- name: cl\n  cluster:\n" + cluster + "users:\n- name: u\n  user:\n" + user
}

const okCluster = "    server: https://example.com:6443\n"

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func TestBadInputsReturnTypedErrorsNamingFileAndField(t *testing.T) {
	ca := read(t, "testdata/pki/ca.crt")
	crt := read(t, "testdata/pki/client.crt")
	key := read(t, "testdata/pki/client.key")
	execOK := "    exec: {command: plugin, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never}\n"

	aliasBomb := "a: &a [\"" + strings.Repeat("x", 1<<20) + "\"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: [*b,*b,*b,*b,*b,*b,*b,*b]\n"
	laughs := "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	for i := 'b'; i <= 'i'; i++ {
		prev := string(i - 1)
		laughs += fmt.Sprintf("%c: &%c [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", i, i, prev, prev, prev, prev, prev, prev, prev, prev, prev)
	}

	tests := []struct {
		name    string
		content string
		ov      kubeconfig.Overrides
		want    error
		field   string // substring of Error.Field
	}{
		{"missing current-context", strings.Replace(kc(okCluster, "    token: tok-SECRET-1\n"), "current-context: c\n", "", 1), kubeconfig.Overrides{}, kubeconfig.ErrNoCurrentContext, "current-context"},
		{"current-context names a missing context", strings.Replace(kc(okCluster, ""), "current-context: c", "current-context: nope", 1), kubeconfig.Overrides{}, kubeconfig.ErrContextNotFound, "current-context"},
		{"context override names a missing context", kc(okCluster, ""), kubeconfig.Overrides{Context: "nope"}, kubeconfig.ErrContextNotFound, "context override"},
		{"context points to a missing cluster", strings.Replace(kc(okCluster, ""), "cluster: cl,", "cluster: gone,", 1), kubeconfig.Overrides{}, kubeconfig.ErrClusterNotFound, "contexts[c].cluster"},
		{"context names no cluster", strings.Replace(kc(okCluster, ""), "cluster: cl,", "", 1), kubeconfig.Overrides{}, kubeconfig.ErrClusterNotFound, "contexts[c].cluster"},
		{"context points to a missing user", strings.Replace(kc(okCluster, ""), "user: u}", "user: gone}", 1), kubeconfig.Overrides{}, kubeconfig.ErrUserNotFound, "contexts[c].user"},
		{"CA data that is not PEM", kc(okCluster+"    certificate-authority-data: "+b64([]byte("not a pem"))+"\n", ""), kubeconfig.Overrides{}, kubeconfig.ErrInvalidCA, "clusters[cl].certificate-authority-data"},
		{"CA file that is not PEM", kc(okCluster+"    certificate-authority: notpem.txt\n", ""), kubeconfig.Overrides{}, kubeconfig.ErrInvalidCA, "clusters[cl].certificate-authority"},
		{"CA file missing", kc(okCluster+"    certificate-authority: missing.crt\n", ""), kubeconfig.Overrides{}, fs.ErrNotExist, "clusters[cl].certificate-authority"},
		{"insecure-skip-tls-verify with a CA", kc(okCluster+"    insecure-skip-tls-verify: true\n    certificate-authority-data: "+b64(ca)+"\n", ""), kubeconfig.Overrides{}, kubeconfig.ErrInsecureWithCA, "insecure-skip-tls-verify"},
		{"client certificate without its key", kc(okCluster, "    client-certificate-data: "+b64(crt)+"\n"), kubeconfig.Overrides{}, kubeconfig.ErrMissingKey, "users[u].client-key"},
		{"client key without its certificate", kc(okCluster, "    client-key-data: "+b64(key)+"\n"), kubeconfig.Overrides{}, kubeconfig.ErrMissingCertificate, "users[u].client-certificate"},
		{"client certificate and key that do not match", kc(okCluster, "    client-certificate-data: "+b64(ca)+"\n    client-key-data: "+b64(key)+"\n"), kubeconfig.Overrides{}, kubeconfig.ErrInvalidCertificate, "users[u].client-certificate"},
		{"client key file missing", kc(okCluster, "    client-certificate: "+abs(t, "testdata/pki/client.crt")+"\n    client-key: nokey\n"), kubeconfig.Overrides{}, fs.ErrNotExist, "users[u].client-certificate"},
		{"token and exec both set", kc(okCluster, "    token: tok-SECRET-1\n"+execOK), kubeconfig.Overrides{}, kubeconfig.ErrConflictingAuth, "users[u]"},
		{"token and basic auth both set", kc(okCluster, "    token: tok-SECRET-1\n    username: a\n    password: pw-SECRET-2\n"), kubeconfig.Overrides{}, kubeconfig.ErrConflictingAuth, "users[u]"},
		{"exec without apiVersion", kc(okCluster, "    exec: {command: plugin, env: [{name: X, value: env-SECRET-3}]}\n"), kubeconfig.Overrides{}, kubeconfig.ErrInvalidExec, "users[u].exec.apiVersion"},
		{"exec with an unknown apiVersion", kc(okCluster, "    exec: {command: plugin, apiVersion: client.authentication.k8s.io/v1alpha1}\n"), kubeconfig.Overrides{}, kubeconfig.ErrInvalidExec, "users[u].exec.apiVersion"},
		{"exec without command", kc(okCluster, "    exec: {apiVersion: client.authentication.k8s.io/v1}\n"), kubeconfig.Overrides{}, kubeconfig.ErrInvalidExec, "users[u].exec.command"},
		{"exec v1 without interactiveMode", kc(okCluster, "    exec: {command: p, apiVersion: client.authentication.k8s.io/v1}\n"), kubeconfig.Overrides{}, kubeconfig.ErrInvalidExec, "users[u].exec"},
		{"auth-provider is unsupported", kc(okCluster, "    auth-provider: {name: oidc, config: {id-token: tok-SECRET-1}}\n"), kubeconfig.Overrides{}, kubeconfig.ErrUnsupported, "users[u].auth-provider"},
		{"token file missing", kc(okCluster, "    tokenFile: tokens/none\n"), kubeconfig.Overrides{}, fs.ErrNotExist, "users[u].tokenFile"},
		{"token over plain http", kc("    server: http://example.com\n", "    token: tok-SECRET-1\n"), kubeconfig.Overrides{}, kubeconfig.ErrInsecureAuth, "users[u]"},
		{"basic auth over plain http", kc("    server: http://example.com\n", "    username: a\n    password: pw-SECRET-2\n"), kubeconfig.Overrides{}, kubeconfig.ErrInsecureAuth, "users[u]"},
		{"exec over plain http", kc("    server: http://example.com\n", execOK), kubeconfig.Overrides{}, kubeconfig.ErrInsecureAuth, "users[u]"},
		{"CA file that is a device", kc(okCluster+"    certificate-authority: /dev/zero\n", ""), kubeconfig.Overrides{}, kubeconfig.ErrNotRegularFile, "clusters[cl].certificate-authority"},
		{"server missing", kc("    insecure-skip-tls-verify: true\n", ""), kubeconfig.Overrides{}, kubeconfig.ErrInvalidServer, "clusters[cl].server"},
		{"server with a bare IPv6 address", kc("    server: \"::1:6443\"\n", ""), kubeconfig.Overrides{}, kubeconfig.ErrInvalidServer, "clusters[cl].server"},
		{"server with an unbracketed IPv6 literal", kc("    server: https://fe80::1:6443\n", ""), kubeconfig.Overrides{}, kubeconfig.ErrInvalidServer, "clusters[cl].server"},
		{"server with credentials in the URL", kc("    server: https://user:pw-SECRET-2@example.com\n", ""), kubeconfig.Overrides{}, kubeconfig.ErrInvalidServer, "clusters[cl].server"},
		{"server with a query", kc("    server: https://example.com/?x=1\n", ""), kubeconfig.Overrides{}, kubeconfig.ErrInvalidServer, "clusters[cl].server"},
		{"server with another scheme", kc("    server: ftp://example.com\n", ""), kubeconfig.Overrides{}, kubeconfig.ErrInvalidServer, "clusters[cl].server"},
		{"server with a bad port", kc("    server: https://example.com:99999\n", ""), kubeconfig.Overrides{}, kubeconfig.ErrInvalidServer, "clusters[cl].server"},
		{"server override invalid", kc(okCluster, ""), kubeconfig.Overrides{Server: "https://"}, kubeconfig.ErrInvalidServer, "server override"},
		{"proxy URL that does not parse", kc(okCluster+"    proxy-url: \"http://pw-SECRET-2@%zz\"\n", ""), kubeconfig.Overrides{}, kubeconfig.ErrInvalidProxy, "clusters[cl].proxy-url"},
		{"proxy URL with an unknown scheme", kc(okCluster+"    proxy-url: ftp://proxy:21\n", ""), kubeconfig.Overrides{}, kubeconfig.ErrInvalidProxy, "clusters[cl].proxy-url"},
		{"proxy URL without a host", kc(okCluster+"    proxy-url: \"http://\"\n", ""), kubeconfig.Overrides{}, kubeconfig.ErrInvalidProxy, "clusters[cl].proxy-url"},
		{"file over the size bound", "# " + strings.Repeat("x", kubeconfig.MaxFileSize), kubeconfig.Overrides{}, kubeconfig.ErrTooLarge, ""},
		{"alias bomb amplifying a large string", aliasBomb, kubeconfig.Overrides{}, kubeconfig.ErrAliasBomb, ""},
		{"billion laughs", laughs, kubeconfig.Overrides{}, kubeconfig.ErrAliasBomb, ""},
		{"YAML syntax error", "clusters: [\n  - {name: x\n token: tok-SECRET-1", kubeconfig.Overrides{}, kubeconfig.ErrSyntax, ""},
		{"flow mapping used as a key", "users:\n- name: u\n  user: {{token: tok-SECRET-1}: x}\n", kubeconfig.Overrides{}, kubeconfig.ErrSyntax, ""},
		{"sequence used as a key", "users:\n- name: u\n  user: {[tok-SECRET-1, pw-SECRET-2]: x}\n", kubeconfig.Overrides{}, kubeconfig.ErrSyntax, ""},
		{"flow mapping key with an alias", "a: &a {password: pw-SECRET-2}\nusers:\n- {*a : x}\n", kubeconfig.Overrides{}, kubeconfig.ErrSyntax, ""},
		{"wrong type for a field", "clusters: {name: x}\nusers:\n- name: u\n  user: {token: [tok-SECRET-1]}\n", kubeconfig.Overrides{}, kubeconfig.ErrSyntax, ""},
		{"base64 field that is not base64", kc(okCluster, "    client-key-data: \"!!tok-SECRET-1!!\"\n"), kubeconfig.Overrides{}, kubeconfig.ErrSyntax, ""},
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notpem.txt"), []byte("hello"), 0o600)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("config-%d", i))
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			cc, err := kubeconfig.Load(kubeconfig.Options{Path: path, Overrides: tt.ov})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v (config %v), want %v", err, cc, tt.want)
			}
			var ke *kubeconfig.Error
			if !errors.As(err, &ke) {
				t.Fatalf("err %T is not *kubeconfig.Error", err)
			}
			if !strings.Contains(ke.Field, tt.field) {
				t.Errorf("Field = %q, want it to contain %q", ke.Field, tt.field)
			}
			if ke.File != path && !strings.Contains(tt.field, "override") {
				t.Errorf("File = %q, want %q", ke.File, path)
			}
			for _, s := range secrets {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error leaks a secret: %v", err)
				}
			}
		})
	}
}

func TestValidServerURLs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://example.com", "https://example.com"},
		{"https://example.com:6443", "https://example.com:6443"},
		{"example.com:6443", "https://example.com:6443"},
		{"10.0.0.1", "https://10.0.0.1"},
		{"https://[::1]:6443", "https://[::1]:6443"},
		{"[fe80::1]:6443", "https://[fe80::1]:6443"},
		{"https://[2001:db8::1]", "https://[2001:db8::1]"},
		{"http://localhost:8080", "http://localhost:8080"},
		{"https://lb.example.com/clusters/prod", "https://lb.example.com/clusters/prod"},
	}
	for _, tt := range tests {
		got, err := kubeconfig.ParseServer(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseServer(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestUnknownFieldsAreIgnored(t *testing.T) {
	content := "apiVersion: v1\nkind: Config\nfrobnicate: 3\npreferences: {colors: true, extensions: [{name: x, extension: {}}]}\n" +
		"extensions: [{name: y, extension: {a: b}}]\ncurrent-context: c\n" +
		"contexts:\n- name: c\n  context: {cluster: cl, extra: 1}\n  more: true\n" +
		"clusters:\n- name: cl\n  cluster: {server: \"https://x:1\", future-field: [1,2]}\n"
	f, err := kubeconfig.Parse([]byte(content), "")
	if err != nil {
		t.Fatal(err)
	}
	cc, err := f.ClientConfig(kubeconfig.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cc.Config.Host != "https://x:1" || cc.Namespace != "default" {
		t.Fatalf("got %q %q", cc.Config.Host, cc.Namespace)
	}
}

func TestUserStringRedactsSecrets(t *testing.T) {
	u := &kubeconfig.User{Token: "tok-SECRET-1", Password: "pw-SECRET-2", ClientKeyData: []byte("KEYDATA"),
		Exec: &kubeconfig.Exec{Command: "plugin", Env: []kubeconfig.ExecEnvVar{{Name: "AWS_SECRET_ACCESS_KEY", Value: "env-SECRET-3"}}}}
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	logger.Info("user", "pointer", u, "value", *u, "exec", u.Exec, "env", u.Exec.Env[0])
	printed := []string{logs.String()}
	for _, v := range []any{u, *u, u.Exec, *u.Exec, u.Exec.Env, map[string]kubeconfig.User{"u": *u}} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
			printed = append(printed, fmt.Sprintf(verb, v))
		}
	}
	for _, s := range printed {
		if strings.Contains(s, "SECRET-") || strings.Contains(s, "KEYDATA") {
			t.Errorf("leak: %s", s)
		}
	}
	if s := fmt.Sprint((*kubeconfig.User)(nil)); s != "<nil>" {
		t.Errorf("nil *User prints as %q", s)
	}
	if s := fmt.Sprintf("%+v", *u.Exec); !strings.Contains(s, "AWS_SECRET_ACCESS_KEY") {
		t.Errorf("the variable's name is not shown: %s", s)
	}
}
