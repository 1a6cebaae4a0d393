package manager_test

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/testenv"
)

// On the real server: the Manager's metrics over HTTPS admit a service
// account that RBAC allows to get /metrics, refuse one it does not (403)
// and a caller without a token (401), and keep pprof behind the same check.
func TestIntegrationSecureMetrics(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	admin, err := client.NewForConfig(cp.Config(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	suffix := hex.EncodeToString(b)
	ns := "metrics-" + suffix
	if _, err := client.Typed[*corev1.Namespace](admin).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	role := "kubego-metrics-reader-" + suffix
	t.Cleanup(func() {
		bg := context.Background()
		_ = client.Typed[*corev1.Namespace](admin).Delete(bg, ns, metav1.DeleteOptions{})
		_ = client.Typed[*rbacv1.ClusterRoleBinding](admin).Delete(bg, role, metav1.DeleteOptions{})
		_ = client.Typed[*rbacv1.ClusterRole](admin).Delete(bg, role, metav1.DeleteOptions{})
	})
	if _, err := client.Typed[*rbacv1.ClusterRole](admin).Create(ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: role},
		Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Typed[*rbacv1.ClusterRoleBinding](admin).Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "scraper", Namespace: ns}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	token := func(sa string) string {
		t.Helper()
		if _, err := client.Typed[*corev1.ServiceAccount](admin).Namespace(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		var tr authenticationv1.TokenRequest
		if err := client.Typed[*corev1.ServiceAccount](admin).Namespace(ns).CreateSubresource(ctx, sa, "token", &authenticationv1.TokenRequest{}, &tr, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		return tr.Status.Token
	}
	scraper, nobody := token("scraper"), token("nobody")

	// RBAC sees the new binding through its informers: wait until the
	// server allows it, so the filter's first answer is the final one.
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		sar, err := client.Typed[*authorizationv1.SubjectAccessReview](admin).Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:                  "system:serviceaccount:" + ns + ":scraper",
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
		}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		if !sar.Status.Allowed {
			return fmt.Errorf("not allowed yet: %s", sar.Status.Reason)
		}
		return nil
	})

	mgr, err := manager.New(manager.Options{
		Config:        cp.Config(),
		MetricsAddr:   "127.0.0.1:0",
		HealthAddr:    "127.0.0.1:0",
		SecureMetrics: &manager.SecureMetrics{},
		Pprof:         true,
		Logger:        kubegotest.Logger(t, nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(runCtx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-mgr.Serving():
	case err := <-done:
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, Timeout: 30 * time.Second}
	defer hc.CloseIdleConnections()
	base := "https://" + mgr.MetricsAddr().String()

	tests := []struct {
		name     string
		path     string
		token    string
		wantCode int
		wantBody string
	}{
		{name: "a service account RBAC allows reads the metrics", path: "/metrics", token: scraper, wantCode: 200, wantBody: "rest_client_requests_total"},
		{name: "a service account without the permission is forbidden", path: "/metrics", token: nobody, wantCode: 403, wantBody: "cannot get path"},
		{name: "no token is unauthorized", path: "/metrics", wantCode: 401},
		{name: "a forged token is unauthorized", path: "/metrics", token: scraper[:len(scraper)-4] + "AAAA", wantCode: 401},
		{name: "pprof is behind the same check", path: "/debug/pprof/goroutine?debug=1", token: scraper, wantCode: 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(ctx, "GET", base+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.token != "" {
				req.Header.Set("Authorization", "Bearer "+tt.token)
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantCode || !strings.Contains(string(body), tt.wantBody) {
				t.Fatalf("got %d %.200q, want %d containing %q", resp.StatusCode, body, tt.wantCode, tt.wantBody)
			}
		})
	}

	// Plain HTTP to the TLS port is refused by the server.
	resp, err := hc.Get("http://" + mgr.MetricsAddr().String() + "/metrics")
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Fatal("metrics served over plain HTTP")
		}
	}
}
