package authfilter

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/clock/clocktest"
	"github.com/kubego/kubego/internal/defaultlog/defaultlogtest"
	"github.com/kubego/kubego/rest"
)

// reviewer plays the two review endpoints of kube-apiserver: tokens maps a
// token to its user, allowed holds "user verb path" triples.
type reviewer struct {
	tokens  map[string]string
	allowed map[string]bool

	mu          sync.Mutex
	fail        bool
	tokenCalls  atomic.Int32
	accessCalls atomic.Int32
	lastAccess  authorizationv1.SubjectAccessReviewSpec
}

func (rv *reviewer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rv.mu.Lock()
	fail := rv.fail
	rv.mu.Unlock()
	if fail {
		http.Error(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","code":500,"message":"etcd is down"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/apis/authentication.k8s.io/v1/tokenreviews":
		rv.tokenCalls.Add(1)
		var tr authenticationv1.TokenReview
		if err := json.NewDecoder(r.Body).Decode(&tr); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if name, ok := rv.tokens[tr.Spec.Token]; ok {
			tr.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{Username: name, Groups: []string{"system:authenticated"}}}
		} else {
			tr.Status = authenticationv1.TokenReviewStatus{Error: "invalid bearer token"}
		}
		tr.Spec.Token = ""
		_ = json.NewEncoder(w).Encode(&tr)
	case "/apis/authorization.k8s.io/v1/subjectaccessreviews":
		rv.accessCalls.Add(1)
		var sar authorizationv1.SubjectAccessReview
		if err := json.NewDecoder(r.Body).Decode(&sar); err != nil || sar.Spec.NonResourceAttributes == nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		rv.mu.Lock()
		rv.lastAccess = sar.Spec
		rv.mu.Unlock()
		a := sar.Spec.NonResourceAttributes
		sar.Status.Allowed = rv.allowed[sar.Spec.User+" "+a.Verb+" "+a.Path]
		if !sar.Status.Allowed {
			sar.Status.Reason = "no RBAC policy matched"
		}
		_ = json.NewEncoder(w).Encode(&sar)
	default:
		http.NotFound(w, r)
	}
}

func (rv *reviewer) setFail(v bool) {
	rv.mu.Lock()
	rv.fail = v
	rv.mu.Unlock()
}

func newFilter(t *testing.T, rv *reviewer, clk *clocktest.Manual) *Filter {
	t.Helper()
	srv := httptest.NewServer(rv)
	t.Cleanup(srv.Close)
	c, err := client.NewForConfig(&rest.Config{Host: srv.URL, ContentType: rest.ContentTypeJSON}, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := New(Options{Client: c, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func get(h http.Handler, method, path, authz string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

var ok = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("metrics")) })

func TestWrapAnswers(t *testing.T) {
	rv := &reviewer{
		tokens:  map[string]string{"reader-token": "reader", "nobody-token": "nobody"},
		allowed: map[string]bool{"reader get /metrics": true},
	}
	h := newFilter(t, rv, clocktest.New(time.Unix(1e9, 0))).Wrap(ok)
	tests := []struct {
		name     string
		method   string
		path     string
		authz    string
		wantCode int
		wantBody string
	}{
		{name: "allowed user gets the handler", method: "GET", path: "/metrics", authz: "Bearer reader-token", wantCode: 200, wantBody: "metrics"},
		{name: "HEAD is authorized as get", method: "HEAD", path: "/metrics", authz: "Bearer reader-token", wantCode: 200},
		{name: "scheme is case-insensitive", method: "GET", path: "/metrics", authz: "bearer reader-token", wantCode: 200},
		{name: "no token is 401", method: "GET", path: "/metrics", wantCode: 401, wantBody: "Unauthorized"},
		{name: "basic auth is 401", method: "GET", path: "/metrics", authz: "Basic cmVhZGVyOng=", wantCode: 401},
		{name: "empty bearer is 401", method: "GET", path: "/metrics", authz: "Bearer ", wantCode: 401},
		{name: "unknown token is 401", method: "GET", path: "/metrics", authz: "Bearer forged", wantCode: 401},
		{name: "user without permission is 403 with the reason", method: "GET", path: "/metrics", authz: "Bearer nobody-token", wantCode: 403, wantBody: `user "nobody" cannot get path "/metrics": no RBAC policy matched`},
		{name: "another path is authorized on its own", method: "GET", path: "/debug/pprof/", authz: "Bearer reader-token", wantCode: 403},
		{name: "another verb is authorized on its own", method: "POST", path: "/metrics", authz: "Bearer reader-token", wantCode: 403, wantBody: "cannot post path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := get(h, tt.method, tt.path, tt.authz)
			if rec.Code != tt.wantCode || !strings.Contains(rec.Body.String(), tt.wantBody) {
				t.Fatalf("got %d %q, want %d containing %q", rec.Code, rec.Body.String(), tt.wantCode, tt.wantBody)
			}
			if tt.wantCode == 401 && rec.Header().Get("WWW-Authenticate") == "" {
				t.Fatal("401 without a WWW-Authenticate challenge")
			}
		})
	}
}

func TestDecisionsAreCachedForTheirTTL(t *testing.T) {
	rv := &reviewer{
		tokens:  map[string]string{"reader-token": "reader", "nobody-token": "nobody"},
		allowed: map[string]bool{"reader get /metrics": true},
	}
	clk := clocktest.New(time.Unix(1e9, 0))
	h := newFilter(t, rv, clk).Wrap(ok)

	for range 5 {
		if rec := get(h, "GET", "/metrics", "Bearer reader-token"); rec.Code != 200 {
			t.Fatalf("code %d", rec.Code)
		}
		if rec := get(h, "GET", "/metrics", "Bearer nobody-token"); rec.Code != 403 {
			t.Fatalf("code %d", rec.Code)
		}
		if rec := get(h, "GET", "/metrics", "Bearer forged"); rec.Code != 401 {
			t.Fatalf("code %d", rec.Code)
		}
	}
	if n, m := rv.tokenCalls.Load(), rv.accessCalls.Load(); n != 3 || m != 2 {
		t.Fatalf("%d TokenReviews and %d SubjectAccessReviews for 15 requests of 3 callers, want 3 and 2", n, m)
	}

	// Denials expire first: after DenyTTL only the denied caller and the
	// forged token are reviewed again.
	clk.Advance(DefaultDenyTTL)
	get(h, "GET", "/metrics", "Bearer reader-token")
	get(h, "GET", "/metrics", "Bearer nobody-token")
	get(h, "GET", "/metrics", "Bearer forged")
	if n, m := rv.tokenCalls.Load(), rv.accessCalls.Load(); n != 4 || m != 3 {
		t.Fatalf("after DenyTTL: %d TokenReviews and %d SubjectAccessReviews, want 4 and 3", n, m)
	}
	clk.Advance(DefaultAllowTTL)
	get(h, "GET", "/metrics", "Bearer reader-token")
	if n, m := rv.tokenCalls.Load(), rv.accessCalls.Load(); n != 5 || m != 4 {
		t.Fatalf("after AllowTTL: %d TokenReviews and %d SubjectAccessReviews, want 5 and 4", n, m)
	}
}

func TestFailedReviewsAre503AndNotCached(t *testing.T) {
	rv := &reviewer{tokens: map[string]string{"reader-token": "reader"}, allowed: map[string]bool{"reader get /metrics": true}}
	logs := defaultlogtest.Capture(t)
	h := newFilter(t, rv, clocktest.New(time.Unix(1e9, 0))).Wrap(ok)
	rv.setFail(true)
	rec := get(h, "GET", "/metrics", "Bearer reader-token")
	if rec.Code != http.StatusServiceUnavailable || strings.Contains(rec.Body.String(), "etcd") {
		t.Fatalf("got %d %q, want 503 without the server's message", rec.Code, rec.Body.String())
	}
	rv.setFail(false)
	if rec := get(h, "GET", "/metrics", "Bearer reader-token"); rec.Code != 200 {
		t.Fatalf("after the server recovered: %d, want 200 (the failure must not be cached)", rec.Code)
	}
	if strings.Contains(logs.String(), "reader-token") {
		t.Fatalf("the token reached the log: %s", logs.String())
	}
	if !strings.Contains(logs.String(), "TokenReview failed") {
		t.Fatalf("the failed review was not logged: %s", logs.String())
	}
}

func TestCheckSendsTheWholeUser(t *testing.T) {
	rv := &reviewer{tokens: map[string]string{"t": "alice"}, allowed: map[string]bool{"alice get /metrics": true}}
	f := newFilter(t, rv, clocktest.New(time.Unix(1e9, 0)))
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.Header.Set("Authorization", "Bearer t")
	u, err := f.Check(req)
	if err != nil || u.Username != "alice" {
		t.Fatalf("Check = %+v, %v", u, err)
	}
	spec := rv.lastAccess
	if spec.User != "alice" || len(spec.Groups) != 1 || spec.Groups[0] != "system:authenticated" || spec.NonResourceAttributes.Verb != "get" {
		t.Fatalf("SubjectAccessReview spec = %+v", spec)
	}
	req.Header.Set("Authorization", "Bearer nope")
	if _, err := f.Check(req); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("Check with a bad token = %v, want ErrUnauthenticated", err)
	}
}

func TestDecisionKeysDoNotCollide(t *testing.T) {
	a := authenticationv1.UserInfo{Username: "a", Groups: []string{"b c"}}
	b := authenticationv1.UserInfo{Username: "a", Groups: []string{"b", "c"}}
	c := authenticationv1.UserInfo{Username: "a", Extra: map[string]authenticationv1.ExtraValue{"k": {"v"}}}
	d := authenticationv1.UserInfo{Username: "a", Extra: map[string]authenticationv1.ExtraValue{"k": {"v", "w"}}}
	keys := map[string]bool{}
	for _, u := range []authenticationv1.UserInfo{a, b, c, d} {
		keys[decisionKey(u, "get", "/metrics")] = true
	}
	keys[decisionKey(a, "get", "/metricsx")] = true
	if len(keys) != 5 {
		t.Fatalf("%d distinct keys for 5 distinct inputs", len(keys))
	}
}

func TestCacheStaysBounded(t *testing.T) {
	clk := clocktest.New(time.Unix(1e9, 0))
	c := newCache[int](clk, 3)
	for i, k := range []string{"a", "b", "c", "d", "e"} {
		c.put(k, i, time.Minute)
	}
	if n := c.len(); n != 3 {
		t.Fatalf("len = %d, want 3", n)
	}
	if v, ok := c.get("e"); !ok || v != 4 {
		t.Fatalf("the newest entry is missing: %v %v", v, ok)
	}
	clk.Advance(time.Minute)
	if _, ok := c.get("e"); ok {
		t.Fatal("an expired entry was returned")
	}
}

func TestNewRefusesOptionsThatCannotWork(t *testing.T) {
	if _, err := New(Options{}); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("no client: %v", err)
	}
	c, err := client.NewForConfig(&rest.Config{Host: "https://127.0.0.1:1"}, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{Client: c, DenyTTL: -1}); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("negative TTL: %v", err)
	}
}
