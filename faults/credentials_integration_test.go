package faults_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/auth"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

// Scenario 13 (token file): the informer authenticates with a service
// account token read from a file (rest.Config.BearerTokenFile). The token
// is bound to a Secret; the test writes a new token into the file and
// deletes the old token's Secret, which revokes it. After the server's
// token cache expires, the watch is cut: the new watch meets 401 and the
// client must re-read the file and carry on without losing events. The
// client's clock is frozen, so the token never ages out of its cache: only
// the 401 can make it re-read the file.
//
// Scenario 13 (exec plugin): the same rotation, with the token coming from
// an exec credential plugin (a shell script) whose credentials expire
// after 2 s: the client must run the plugin again for the first request
// after expiry.
func TestCredentialRotation(t *testing.T) {
	t.Run("token file", func(t *testing.T) {
		testRotation(t, func(t *testing.T, path string, cfg *rest.Config) {
			cfg.BearerTokenFile = path
			cfg.Clock = frozenClock{at: time.Now()}
		}, nil)
	})
	t.Run("exec plugin with expiring credentials", func(t *testing.T) {
		var ex *auth.Exec
		testRotation(t, func(t *testing.T, path string, cfg *rest.Config) {
			script := filepath.Join(t.TempDir(), "plugin.sh")
			if err := os.WriteFile(script, []byte(pluginScript), 0o700); err != nil {
				t.Fatal(err)
			}
			var err error
			ex, err = auth.NewExec(auth.ExecOptions{Config: auth.ExecConfig{
				Command: script, APIVersion: auth.ExecAPIV1, InteractiveMode: auth.InteractiveNever,
				Env: []auth.EnvVar{{Name: "TOKEN_FILE", Value: path}},
			}})
			if err != nil {
				t.Fatal(err)
			}
			cfg.Auth = ex
		}, func() {
			t.Logf("plugin runs: %d", ex.Runs())
			// One run for the first request; the informer's next request
			// (after the cut, long past the 2 s expiry) must run it again.
			if ex.Runs() < 2 {
				t.Errorf("plugin ran %d times; the expired credential was not refreshed", ex.Runs())
			}
		})
	})
}

// pluginScript is an exec credential plugin printing the token in
// $TOKEN_FILE with an expiry 2 s ahead.
const pluginScript = `#!/bin/sh
tok=$(cat "$TOKEN_FILE")
exp=$(date -u -d "+2 seconds" +%Y-%m-%dT%H:%M:%SZ)
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"%s"}}' "$tok" "$exp"
`

// frozenClock is a clock.Clock whose Now never moves; its timers are real.
type frozenClock struct{ at time.Time }

func (c frozenClock) Now() time.Time { return c.at }

func (frozenClock) AfterFunc(d time.Duration, f func()) clock.Timer { return time.AfterFunc(d, f) }

// testRotation runs the scenario; setAuth puts the credential reading the
// token file at path into the informer's Config.
func testRotation(t *testing.T, setAuth func(t *testing.T, path string, cfg *rest.Config), after func()) {
	cp := testenv.Shared(t)
	admin := newClient(t, cp.Config())
	p := newTCPProxy(t, apiAddr(t, cp.APIServer().URL()))
	tokenPath := filepath.Join(t.TempDir(), "token")
	var old string
	var nsName string
	r := run{TruthCfg: cp.Config(), InfCfg: func(ns string) *rest.Config {
		nsName = ns
		tok, _ := boundToken(t, admin, ns, "tok-1")
		old = tok
		if err := os.WriteFile(tokenPath, []byte(tok), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg := &rest.Config{Host: p.URL(), TLS: rest.TLSConfig{CAData: cp.CAData()}}
		setAuth(t, tokenPath, cfg)
		return cfg
	}}
	r.do(t, func(ctx context.Context, w *watched, wr *writer) {
		tok, _ := boundToken(t, admin, nsName, "tok-2")
		if err := os.WriteFile(tokenPath, []byte(tok), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := client.Typed[*corev1.Secret](admin).Namespace(nsName).Delete(ctx, "tok-1", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		// Wait until the server refuses the old token (its authentication
		// cache keeps successes for about 10 s).
		oldCfg := &rest.Config{Host: cp.APIServer().URL(), TLS: rest.TLSConfig{CAData: cp.CAData()}, BearerToken: old}
		oc := client.Typed[*corev1.ConfigMap](newClient(t, oldCfg)).Namespace(nsName)
		start := time.Now()
		for ctx.Err() == nil {
			_, err := oc.List(ctx, metav1.ListOptions{Limit: 1})
			if apierrors.IsUnauthorized(err) {
				break
			}
			sleepCtx(ctx, 500*time.Millisecond)
		}
		t.Logf("old token refused %s after revocation", time.Since(start).Round(100*time.Millisecond))
		p.Reset()
		sleepCtx(ctx, 3*time.Second)
	})
	if after != nil {
		after()
	}
}

// boundToken creates (once) a service account "rotator" with admin rights (cluster-admin bound in ns only: aggregated roles such as edit need kube-controller-manager)
// in ns, a Secret called secret and a token bound to it, and returns the
// token.
func boundToken(t *testing.T, c *client.Client, ns, secret string) (string, *corev1.Secret) {
	t.Helper()
	ctx := t.Context()
	_, err := client.Typed[*corev1.ServiceAccount](c).Namespace(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "rotator"}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	_, err = client.Typed[*rbacv1.RoleBinding](c).Namespace(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "rotator"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "rotator", Namespace: ns}},
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	s, err := client.Typed[*corev1.Secret](c).Namespace(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: secret}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	exp := int64(3600)
	tr := &authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{
		ExpirationSeconds: &exp,
		BoundObjectRef:    &authnv1.BoundObjectReference{Kind: "Secret", APIVersion: "v1", Name: s.Name, UID: s.UID},
	}}
	out := &authnv1.TokenRequest{}
	if err := client.Typed[*corev1.ServiceAccount](c).Namespace(ns).CreateSubresource(ctx, "rotator", "token", tr, out, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if out.Status.Token == "" {
		t.Fatal("TokenRequest returned no token")
	}
	return out.Status.Token, s
}
