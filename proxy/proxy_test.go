package proxy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kubego/kubego/rest"
)

func TestRequestsGoToTheProxySubresourceURL(t *testing.T) {
	var got *http.Request
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		_, _ = io.WriteString(w, "answer")
	}))
	defer srv.Close()
	c, err := rest.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		target   Target
		call     Call
		wantPath string
		wantQ    string
	}{
		{"pod with a port and a path", Pod("ns", "web", "8080"), Call{Path: "/metrics"}, "/api/v1/namespaces/ns/pods/web:8080/proxy/metrics", ""},
		{"pod without a port", Pod("ns", "web", ""), Call{Path: "a/b/"}, "/api/v1/namespaces/ns/pods/web/proxy/a/b", ""},
		{"service over https", Target{resource: "services", Namespace: "ns", Name: "svc", Port: "web", Scheme: "https"}, Call{}, "/api/v1/namespaces/ns/services/https:svc:web/proxy", ""},
		{"query and body", Service("ns", "svc", "80"), Call{Method: http.MethodPost, Path: "/x", Query: map[string][]string{"q": {"1"}}, Body: strings.NewReader("sent")}, "/api/v1/namespaces/ns/services/svc:80/proxy/x", "q=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc, err := Do(context.Background(), c, tt.target, tt.call)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			_ = rc.Close()
			if string(b) != "answer" {
				t.Fatalf("body %q", b)
			}
			if got.URL.Path != tt.wantPath || got.URL.RawQuery != tt.wantQ {
				t.Fatalf("request %s?%s, want %s?%s", got.URL.Path, got.URL.RawQuery, tt.wantPath, tt.wantQ)
			}
			if tt.call.Body != nil && body != "sent" {
				t.Fatalf("body sent %q", body)
			}
		})
	}
}

func TestTargetsThatCannotNameAURLAreRefused(t *testing.T) {
	c, err := rest.NewClient(&rest.Config{Host: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []Target{
		{Namespace: "ns", Name: "x"},
		Pod("", "x", ""),
		Pod("ns", "a:b", ""),
		{resource: "pods", Namespace: "ns", Name: "x", Scheme: "ftp"},
	} {
		if _, err := Get(context.Background(), c, target, "/"); !errors.Is(err, ErrInvalidTarget) {
			t.Errorf("%+v: err = %v, want ErrInvalidTarget", target, err)
		}
	}
}
