package manager

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/kubego/kubego/rest"
)

// reviewServer answers TokenReviews (token "good" is user alice, "bad" is
// nobody) and SubjectAccessReviews (alice may get /metrics and
// /debug/pprof/goroutine).
func reviewServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/apis/authentication.k8s.io/v1/tokenreviews":
			var tr authenticationv1.TokenReview
			_ = json.NewDecoder(r.Body).Decode(&tr)
			switch tr.Spec.Token {
			case "good":
				tr.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{Username: "alice"}}
			case "bad":
				tr.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{Username: "bob"}}
			}
			_ = json.NewEncoder(w).Encode(&tr)
		case "/apis/authorization.k8s.io/v1/subjectaccessreviews":
			var sar authorizationv1.SubjectAccessReview
			_ = json.NewDecoder(r.Body).Decode(&sar)
			a := sar.Spec.NonResourceAttributes
			sar.Status.Allowed = sar.Spec.User == "alice" && a != nil && a.Verb == "get" && (a.Path == "/metrics" || a.Path == "/debug/pprof/goroutine")
			_ = json.NewEncoder(w).Encode(&sar)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestSecureMetricsServing(t *testing.T) {
	srv := reviewServer(t)
	m, err := New(Options{
		Config:        &rest.Config{Host: srv.URL, ContentType: rest.ContentTypeJSON},
		MetricsAddr:   "127.0.0.1:0",
		HealthAddr:    "127.0.0.1:0", // the same address: one server
		SecureMetrics: &SecureMetrics{},
		Pprof:         true,
		Logger:        slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	<-m.Serving()
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	defer hc.CloseIdleConnections()
	base := "https://" + m.MetricsAddr().String()
	tests := []struct {
		name, url, token string
		wantCode         int
		wantBody         string
	}{
		{name: "allowed caller gets metrics", url: base + "/metrics", token: "good", wantCode: 200, wantBody: "go_goroutines"},
		{name: "allowed caller gets a named profile", url: base + "/debug/pprof/goroutine?debug=1", token: "good", wantCode: 200, wantBody: "goroutine profile"},
		{name: "pprof index needs its own permission", url: base + "/debug/pprof/", token: "good", wantCode: 403},
		{name: "authenticated but not allowed", url: base + "/metrics", token: "bad", wantCode: 403},
		{name: "unknown token", url: base + "/metrics", token: "forged", wantCode: 401},
		{name: "no token", url: base + "/metrics", wantCode: 401},
		{name: "health on the same HTTPS server needs no token", url: base + "/readyz", wantCode: 200},
		{name: "plain HTTP is refused", url: "http://" + m.MetricsAddr().String() + "/metrics", wantCode: 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(ctx, "GET", tt.url, nil)
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
}

func TestPprofHandler(t *testing.T) {
	h := pprofHandler()
	tests := []struct {
		name     string
		url      string
		wantCode int
		wantBody string
	}{
		{name: "index lists profiles", url: "/debug/pprof/", wantCode: 200, wantBody: "goroutine"},
		{name: "unknown profile", url: "/debug/pprof/nope", wantCode: 404, wantBody: `"nope"`},
		{name: "heap in text", url: "/debug/pprof/heap?debug=1&gc=1", wantCode: 200, wantBody: "heap profile"},
		{name: "CPU profile with a bad duration", url: "/debug/pprof/profile?seconds=0", wantCode: 400},
		{name: "trace over the limit", url: "/debug/pprof/trace?seconds=100000", wantCode: 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", tt.url, nil))
			if rec.Code != tt.wantCode || !strings.Contains(rec.Body.String(), tt.wantBody) {
				t.Fatalf("got %d %.200q, want %d containing %q", rec.Code, rec.Body.String(), tt.wantCode, tt.wantBody)
			}
		})
	}
}

func TestCPUProfileEndsWhenTheClientLeaves(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	rec := httptest.NewRecorder()
	pprofHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/debug/pprof/profile?seconds=300", nil).WithContext(ctx))
	if rec.Code != 200 || rec.Body.Len() == 0 {
		t.Fatalf("got %d with %d bytes, want a (short) profile", rec.Code, rec.Body.Len())
	}
}

func TestSecureMetricsOptionsRefused(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:1"}
	tests := []struct {
		name string
		opts Options
	}{
		{name: "pprof on every interface without SecureMetrics", opts: Options{Config: cfg, MetricsAddr: ":8080", Pprof: true}},
		{name: "pprof on a routable address without SecureMetrics", opts: Options{Config: cfg, MetricsAddr: "10.1.2.3:8080", Pprof: true}},
		{name: "certificate without key", opts: Options{Config: cfg, MetricsAddr: ":8443", SecureMetrics: &SecureMetrics{CertFile: "tls.crt"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.opts); !errors.Is(err, ErrInvalidOptions) {
				t.Fatalf("New = %v, want ErrInvalidOptions", err)
			}
		})
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:9090", "[::1]:9090"} {
		if _, err := New(Options{Config: cfg, MetricsAddr: addr, Pprof: true}); err != nil {
			t.Errorf("pprof on loopback %s refused: %v", addr, err)
		}
	}
}
