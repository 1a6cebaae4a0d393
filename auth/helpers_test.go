package auth_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// server is a fake RoundTripper that accepts one token and records what it
// saw.
type server struct {
	mu     sync.Mutex
	accept string
	seen   []string
	bodies []string
}

func (s *server) setAccept(tok string) {
	s.mu.Lock()
	s.accept = tok
	s.mu.Unlock()
}

func (s *server) RoundTrip(r *http.Request) (*http.Response, error) {
	var body string
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		body = string(b)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	h := r.Header.Get("Authorization")
	s.seen = append(s.seen, h)
	s.bodies = append(s.bodies, body)
	code := http.StatusOK
	if h != "Bearer "+s.accept {
		code = http.StatusUnauthorized
	}
	return &http.Response{StatusCode: code, Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
}

func get(t *testing.T, rt http.RoundTripper) int {
	t.Helper()
	req, _ := http.NewRequest("GET", "https://example.invalid/api", nil)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

var testTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
