package kubeconfig_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

// The package's one control plane. testenv.Shared cannot take options, and
// these tests need static tokens, so the plane is started here, once, and
// stopped by TestMain.
var plane struct {
	once sync.Once
	cp   *testenv.ControlPlane
	err  error
}

const (
	staticToken = "static-token-4f1d2c"
	execToken   = "exec-token-9a7b3e"
)

func controlPlane(t *testing.T) *testenv.ControlPlane {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test skipped under -short")
	}
	plane.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testenv.BuildTimeout)
		defer cancel()
		plane.cp, plane.err = testenv.Start(ctx, testenv.Options{StaticTokens: []testenv.StaticToken{
			{Token: staticToken, User: "static-user", UID: "static-uid", Groups: []string{"static-group"}},
			{Token: execToken, User: "exec-user", UID: "exec-uid"},
		}})
	})
	if plane.err != nil {
		t.Fatalf("control plane: %v", plane.err)
	}
	return plane.cp
}

func TestMain(m *testing.M) {
	code := m.Run()
	if pluginDir != "" {
		os.RemoveAll(pluginDir)
	}
	if plane.cp != nil {
		if err := plane.cp.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	os.Exit(code)
}

// kubeconfigFor writes a kubeconfig for the plane with the given user
// section (YAML, indented four spaces) and loads it.
func kubeconfigFor(t *testing.T, cp *testenv.ControlPlane, user string, opts kubeconfig.Options, mutate ...func(*rest.Config)) *rest.Client {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config")
	doc := fmt.Sprintf("apiVersion: v1\nkind: Config\ncurrent-context: it\ncontexts:\n- name: it\n  context: {cluster: it, user: it}\n"+
		"clusters:\n- name: it\n  cluster:\n    server: %s\n    certificate-authority-data: %s\nusers:\n- name: it\n  user:\n%s",
		cp.Config().Host, base64.StdEncoding.EncodeToString(cp.CAData()), user)
	writeConfig(t, path, doc)
	opts.Path = path
	cc, err := kubeconfig.Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mutate {
		m(cc.Config)
	}
	return newClient(t, cc.Config)
}

func newClient(t *testing.T, cfg *rest.Config) *rest.Client {
	t.Helper()
	cfg.ContentType = rest.ContentTypeJSON
	c, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// call sends verb path with a JSON body (nil for none) and decodes the
// answer into out (nil to ignore).
func call(ctx context.Context, c *rest.Client, verb, path string, body, out any) error {
	r := c.Verb(verb).AbsPath(path)
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = r.Body(b)
	}
	raw, err := r.Do(ctx).Raw()
	if err != nil {
		return err
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// whoami returns the user name the server sees.
func whoami(ctx context.Context, c *rest.Client) (string, error) {
	var r authnv1.SelfSubjectReview
	err := call(ctx, c, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
		&authnv1.SelfSubjectReview{TypeMeta: metav1.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "SelfSubjectReview"}}, &r)
	return r.Status.UserInfo.Username, err
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestIntegrationAdminCertificateKubeconfig(t *testing.T) {
	cp := controlPlane(t)
	ctx := t.Context()
	dir := t.TempDir()

	// As testenv writes it.
	path := filepath.Join(dir, "testenv.yaml")
	must(t, cp.WriteKubeconfig(path))
	cc, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	must(t, err)
	if _, err := newClient(t, cc.Config).Get().AbsPath("/api/v1/namespaces").Do(ctx).Raw(); err != nil {
		t.Fatalf("list namespaces with testenv's kubeconfig: %v", err)
	}

	// As this package writes it, minified with files inlined, through KUBECONFIG.
	f := kubeconfig.FromRESTConfig(cp.Config(), "admin", "kube-system")
	path2 := filepath.Join(dir, "ours.yaml")
	must(t, kubeconfig.Write(path2, f))
	cc, err = kubeconfig.Load(kubeconfig.Options{Getenv: env(map[string]string{"KUBECONFIG": path2}), DisableInCluster: true})
	must(t, err)
	if cc.Namespace != "kube-system" {
		t.Fatalf("namespace %q", cc.Namespace)
	}
	name, err := whoami(ctx, newClient(t, cc.Config))
	must(t, err)
	if name == "" || strings.HasPrefix(name, "system:anonymous") {
		t.Fatalf("admin certificate authenticated as %q", name)
	}

	// With certificate files at paths relative to the kubeconfig, as
	// minikube and kubeadm write them (reloaded when they change).
	admin := cp.Config()
	writeConfig(t, filepath.Join(dir, "pki", "admin.crt"), string(admin.TLS.CertData))
	writeConfig(t, filepath.Join(dir, "pki", "admin.key"), string(admin.TLS.KeyData))
	writeConfig(t, filepath.Join(dir, "pki", "ca.crt"), string(cp.CAData()))
	path3 := writeConfig(t, filepath.Join(dir, "files.yaml"), fmt.Sprintf("current-context: c\ncontexts: [{name: c, context: {cluster: c, user: c}}]\n"+
		"clusters: [{name: c, cluster: {server: %q, certificate-authority: pki/ca.crt}}]\n"+
		"users: [{name: c, user: {client-certificate: pki/admin.crt, client-key: pki/admin.key}}]\n", admin.Host))
	cc, err = kubeconfig.Load(kubeconfig.Options{Path: path3})
	must(t, err)
	if cc.Config.TLS.ClientCertificates == nil {
		t.Fatal("certificate files are not reloadable")
	}
	name2, err := whoami(ctx, newClient(t, cc.Config))
	must(t, err)
	if name2 != name {
		t.Fatalf("certificate files authenticated as %q, want %q", name2, name)
	}
}

func TestIntegrationTokenFileUser(t *testing.T) {
	cp := controlPlane(t)
	tokenPath := filepath.Join(t.TempDir(), "token")
	writeConfig(t, tokenPath, staticToken+"\n")
	c := kubeconfigFor(t, cp, "    tokenFile: "+tokenPath+"\n", kubeconfig.Options{})
	name, err := whoami(t.Context(), c)
	must(t, err)
	if name != "static-user" {
		t.Fatalf("authenticated as %q, want static-user", name)
	}
	// A wrong token is a 401, with no secret in the error.
	writeConfig(t, tokenPath, "not-a-valid-token")
	c = kubeconfigFor(t, cp, "    tokenFile: "+tokenPath+"\n", kubeconfig.Options{})
	_, err = whoami(t.Context(), c)
	if !apierrors.IsUnauthorized(err) || strings.Contains(err.Error(), "not-a-valid-token") {
		t.Fatalf("err = %v, want a 401 without the token", err)
	}
}

func TestIntegrationServiceAccountTokenRotation(t *testing.T) {
	cp := controlPlane(t)
	ctx := t.Context()
	admin := newClient(t, cp.Config())
	ns := "rotation-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	must(t, call(ctx, admin, "POST", "/api/v1/namespaces", &corev1.Namespace{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: ns}}, nil))
	must(t, call(ctx, admin, "POST", "/api/v1/namespaces/"+ns+"/serviceaccounts", &corev1.ServiceAccount{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: metav1.ObjectMeta{Name: "robot"}}, nil))
	// The built-in "view" role is aggregated by kube-controller-manager,
	// which testenv does not run: grant a Role of our own.
	must(t, call(ctx, admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/"+ns+"/roles", &rbacv1.Role{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
		ObjectMeta: metav1.ObjectMeta{Name: "configmap-reader"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}}},
	}, nil))
	must(t, call(ctx, admin, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/"+ns+"/rolebindings", &rbacv1.RoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: "robot-configmap-reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "configmap-reader"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "robot", Namespace: ns}},
	}, nil))

	// Each token is bound to a Secret, so deleting the Secret revokes it.
	mint := func(secret string) string {
		t.Helper()
		var s corev1.Secret
		must(t, call(ctx, admin, "POST", "/api/v1/namespaces/"+ns+"/secrets", &corev1.Secret{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: metav1.ObjectMeta{Name: secret}}, &s))
		exp := int64(600)
		var tr authnv1.TokenRequest
		must(t, call(ctx, admin, "POST", "/api/v1/namespaces/"+ns+"/serviceaccounts/robot/token", &authnv1.TokenRequest{
			TypeMeta: metav1.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "TokenRequest"},
			Spec: authnv1.TokenRequestSpec{ExpirationSeconds: &exp, BoundObjectRef: &authnv1.BoundObjectReference{
				Kind: "Secret", APIVersion: "v1", Name: secret, UID: s.UID}},
		}, &tr))
		if tr.Status.Token == "" {
			t.Fatal("TokenRequest returned no token")
		}
		return tr.Status.Token
	}

	tokenPath := filepath.Join(t.TempDir(), "token")
	writeAtomically := func(tok string) {
		tmp := tokenPath + ".tmp"
		writeConfig(t, tmp, tok)
		must(t, os.Rename(tmp, tokenPath))
	}
	old := mint("binding-1")
	writeAtomically(old)
	// With the client's clock frozen its token never ages, so only a 401
	// can make it read the file again.
	c := kubeconfigFor(t, cp, "    tokenFile: "+tokenPath+"\n", kubeconfig.Options{}, func(cfg *rest.Config) { cfg.Clock = frozenClock{at: time.Now()} })
	list := func(phase string) {
		t.Helper()
		if _, err := c.Get().AbsPath("/api/v1/namespaces/" + ns + "/configmaps").Do(ctx).Raw(); err != nil {
			t.Fatalf("%s: list configmaps: %v", phase, err)
		}
	}
	name, err := whoami(ctx, c)
	must(t, err)
	if want := "system:serviceaccount:" + ns + ":robot"; name != want {
		t.Fatalf("authenticated as %q, want %q", name, want)
	}
	// The RoleBinding reaches the authorizer's cache shortly after creation.
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		_, err := c.Get().AbsPath("/api/v1/namespaces/" + ns + "/configmaps").Do(ctx).Raw()
		if err != nil {
			return fmt.Errorf("first token: list configmaps: %w", err)
		}
		return nil
	})

	// Rotate mid-run while requests keep going.
	fresh := mint("binding-2")
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				if _, err := c.Get().AbsPath("/api/v1/namespaces/" + ns + "/configmaps").Do(ctx).Raw(); err != nil {
					errs <- err
				}
			}
		}()
	}
	writeAtomically(fresh)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("request during rotation: %v", err)
	}

	// Revoke the old token. The client still has it cached (its clock is
	// frozen); the 401 makes it re-read the file and retry once.
	must(t, call(ctx, admin, "DELETE", "/api/v1/namespaces/"+ns+"/secrets/binding-1", nil, nil))
	oldClient := newClient(t, cp.TokenConfig(old))
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		_, err := oldClient.Get().AbsPath("/api/v1/namespaces/" + ns + "/configmaps").Do(ctx).Raw()
		if !apierrors.IsUnauthorized(err) {
			return fmt.Errorf("old token still accepted after its Secret was deleted (err %v)", err)
		}
		return nil
	})
	list("after revoking the old token (succeeds only if the 401 re-read the file)")
	name, err = whoami(ctx, c)
	must(t, err)
	if !strings.HasSuffix(name, ":robot") {
		t.Fatalf("after rotation authenticated as %q", name)
	}
}

var (
	pluginOnce sync.Once
	pluginBin  string
	pluginErr  error
	pluginDir  string
)

// buildPlugin compiles auth's test plugin once per test binary; TestMain
// removes it.
func buildPlugin(t *testing.T) string {
	t.Helper()
	pluginOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kubego-kubeconfig-plugin")
		if err != nil {
			pluginErr = err
			return
		}
		pluginDir = dir
		pluginBin = filepath.Join(dir, "plugin")
		out, err := exec.Command("go", "build", "-o", pluginBin, "../auth/testdata/plugin").CombinedOutput()
		if err != nil {
			pluginErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if pluginErr != nil {
		t.Fatal(pluginErr)
	}
	return pluginBin
}

func TestIntegrationExecPluginShortLivedToken(t *testing.T) {
	cp := controlPlane(t)
	ctx := t.Context()
	bin := buildPlugin(t)
	dir := t.TempDir()
	countFile, tokenFile := filepath.Join(dir, "count"), filepath.Join(dir, "token")
	runs := func() int {
		b, _ := os.ReadFile(countFile)
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return n
	}
	writeConfig(t, tokenFile, execToken)
	const ttl = 3 * time.Second
	user := fmt.Sprintf("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: %s\n      interactiveMode: Never\n"+
		"      provideClusterInfo: true\n      env:\n      - {name: COUNT_FILE, value: %s}\n      - {name: TOKEN_FILE, value: %s}\n      - {name: TTL, value: %s}\n",
		bin, countFile, tokenFile, ttl)
	c := kubeconfigFor(t, cp, user, kubeconfig.Options{})

	start := time.Now()
	for range 3 {
		name, err := whoami(ctx, c)
		must(t, err)
		if name != "exec-user" {
			t.Fatalf("authenticated as %q, want exec-user", name)
		}
	}
	if time.Since(start) < ttl && runs() != 1 {
		t.Fatalf("plugin ran %d times before expiry, want 1", runs())
	}

	// After expiry the next request runs the plugin again.
	// Waiting for a real expiry timestamp: the plugin is a real process.
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		if _, err := whoami(ctx, c); err != nil {
			return err
		}
		if n := runs(); n < 2 {
			return fmt.Errorf("plugin run %d times, not re-run after its credential expired", n)
		}
		return nil
	})

	// A rejected token makes the plugin run again once and the request is
	// retried: hand out a bad token with a long TTL, then a good one.
	writeConfig(t, tokenFile, "bad-token")
	user2 := strings.Replace(user, "value: "+ttl.String(), "value: 1h", 1)
	c2 := kubeconfigFor(t, cp, user2, kubeconfig.Options{})
	before := runs()
	if _, err := whoami(ctx, c2); !apierrors.IsUnauthorized(err) {
		t.Fatalf("bad token: err = %v, want 401", err)
	}
	if runs() != before+2 {
		t.Fatalf("runs %d, want %d (first run, one re-run on 401)", runs(), before+2)
	}
	writeConfig(t, tokenFile, execToken)
	name, err := whoami(ctx, c2)
	must(t, err)
	if name != "exec-user" || runs() != before+3 {
		t.Fatalf("after fixing the token: user %q runs %d, want exec-user and %d", name, runs(), before+3)
	}
}

// frozenClock is a clock.Clock whose Now never moves; its timers are real.
type frozenClock struct{ at time.Time }

func (c frozenClock) Now() time.Time { return c.at }

func (frozenClock) AfterFunc(d time.Duration, f func()) clock.Timer { return time.AfterFunc(d, f) }
