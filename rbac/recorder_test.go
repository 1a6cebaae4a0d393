package rbac_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/rbac"
	"github.com/kubego/kubego/rest"
)

// Concurrent clients of one recorded Config: every distinct request is
// recorded once, through the fake's in-process transport.
func TestRecorderRecordsConcurrentRequestsOnce(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	cfg := srv.InProcessConfig()
	var rec rbac.Recorder
	rec.Wrap(cfg)
	c, err := client.NewForConfig(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cms := client.Typed[*corev1.ConfigMap](c).Namespace("ns")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			name := fmt.Sprintf("c%d", i%2)
			cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
			cms.Get(t.Context(), name, metav1.GetOptions{})
			cms.List(t.Context(), metav1.ListOptions{})
		})
	}
	wg.Wait()
	var got []string
	for _, r := range rec.Requests() {
		got = append(got, r.String())
	}
	want := []string{
		"create configmaps in namespace ns",
		"list configmaps in namespace ns",
		"get configmaps c0 in namespace ns",
		"get configmaps c1 in namespace ns",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("recorded %q, want %q", got, want)
	}
	if f := rec.Forbidden(); len(f) != 0 {
		t.Fatalf("forbidden %v from a fake that authorizes everything", f)
	}
}

// A request answered 403 is listed by Forbidden; the wrapper the Config
// had still serves the requests.
func TestRecorderListsForbidden(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:1", WrapTransport: func(http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			code := http.StatusOK
			if r.Method == http.MethodDelete {
				code = http.StatusForbidden
			}
			return &http.Response{StatusCode: code, Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(strings.NewReader(`{"kind":"Status","apiVersion":"v1","status":"Failure","code":403,"reason":"Forbidden"}`)), Request: r}, nil
		})
	}}
	var rec rbac.Recorder
	rec.Wrap(cfg)
	c, err := client.NewForConfig(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	client.Typed[*corev1.Secret](c).Namespace("ns").Delete(context.Background(), "s", metav1.DeleteOptions{})
	want := rbac.Request{Verb: "delete", Version: "v1", Resource: "secrets", Namespace: "ns", Name: "s"}
	if f := rec.Forbidden(); len(f) != 1 || f[0] != want {
		t.Fatalf("forbidden %v, want [%s]", f, want)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
