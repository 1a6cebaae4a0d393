package rest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kubego/kubego/rest"
)

// tokens is a TokenSource: Token returns cur (or err); Refresh switches to
// next when it is set, as a rotated credential would, and counts the calls.
type tokens struct {
	mu        sync.Mutex
	cur, next string
	err       error
	refreshes int
}

func (s *tokens) Token(context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur, s.err
}

func (s *tokens) Refresh(context.Context, string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refreshes++
	if s.next != "" {
		s.cur = s.next
	}
	return s.cur, nil
}

// acceptor is a RoundTripper that accepts one bearer token and records
// the headers and bodies it saw.
type acceptor struct {
	mu     sync.Mutex
	accept string
	seen   []string
	bodies []string
}

func (a *acceptor) RoundTrip(r *http.Request) (*http.Response, error) {
	var body string
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		_ = r.Body.Close()
		body = string(b)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	h := r.Header.Get("Authorization")
	a.seen = append(a.seen, h)
	a.bodies = append(a.bodies, body)
	code := http.StatusOK
	if h != "Bearer "+a.accept {
		code = http.StatusUnauthorized
	}
	return &http.Response{StatusCode: code, Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
}

func TestBearerAuth(t *testing.T) {
	payload := func() *http.Request {
		req, _ := http.NewRequest("POST", "https://example.invalid/api", bytes.NewReader([]byte("payload")))
		return req
	}
	unreplayable := func() *http.Request {
		req, _ := http.NewRequest("POST", "https://example.invalid/api", io.NopCloser(strings.NewReader("payload")))
		req.GetBody = nil
		return req
	}
	withHeader := func() *http.Request {
		req, _ := http.NewRequest("GET", "https://example.invalid/api", nil)
		req.Header.Set("Authorization", "Bearer mine")
		return req
	}
	tests := []struct {
		name      string
		src       *tokens
		accept    string
		req       func() *http.Request
		wantCode  int
		wantSeen  []string
		wantBody  string // of the last attempt
		refreshes int
	}{
		{"a valid token is sent once", &tokens{cur: "tok"}, "tok", payload, 200, []string{"Bearer tok"}, "payload", 0},
		{"a 401 with a rotated token retries once with the body replayed", &tokens{cur: "old", next: "new"}, "new", payload, 200, []string{"Bearer old", "Bearer new"}, "payload", 1},
		{"a 401 with an unchanged token is returned", &tokens{cur: "old"}, "new", payload, 401, []string{"Bearer old"}, "payload", 1},
		{"a body that cannot be replayed is not retried", &tokens{cur: "old", next: "new"}, "new", unreplayable, 401, []string{"Bearer old"}, "payload", 1},
		{"an Authorization header of the caller is kept", &tokens{cur: "tok"}, "mine", withHeader, 200, []string{"Bearer mine"}, "", 0},
		{"an empty token sends no header", &tokens{}, "x", payload, 401, []string{""}, "payload", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &acceptor{accept: tt.accept}
			req := tt.req()
			before := req.Header.Get("Authorization")
			resp, err := rest.BearerAuth(tt.src).WrapTransport(srv).RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != tt.wantCode {
				t.Fatalf("code %d, want %d", resp.StatusCode, tt.wantCode)
			}
			if fmt.Sprint(srv.seen) != fmt.Sprint(tt.wantSeen) {
				t.Fatalf("headers %q, want %q", srv.seen, tt.wantSeen)
			}
			if got := srv.bodies[len(srv.bodies)-1]; got != tt.wantBody {
				t.Fatalf("last body %q, want %q", got, tt.wantBody)
			}
			if tt.src.refreshes != tt.refreshes {
				t.Fatalf("%d refreshes, want %d", tt.src.refreshes, tt.refreshes)
			}
			if req.Header.Get("Authorization") != before {
				t.Fatal("the caller's request was modified")
			}
		})
	}
}

func TestBearerAuthTokenErrorFailsTheRequest(t *testing.T) {
	boom := errors.New("plugin failed")
	srv := &acceptor{}
	req, _ := http.NewRequest("GET", "https://example.invalid/api", nil)
	_, err := rest.BearerAuth(&tokens{err: boom}).WrapTransport(srv).RoundTrip(req)
	if !errors.Is(err, boom) || len(srv.seen) != 0 {
		t.Fatalf("err = %v after %d sends; want the source's error and nothing sent", err, len(srv.seen))
	}
}

func BenchmarkBearerAuthRoundTrip(b *testing.B) {
	rt := rest.BearerAuth(&tokens{cur: "tok"}).WrapTransport(roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	}))
	req, _ := http.NewRequest("GET", "https://example.invalid/api", nil)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = rt.RoundTrip(req)
	}
}
