package auth_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubego/kubego/auth"
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

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }
func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
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

func TestTokenFileRereadsAfterMaxAge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	writeFile(t, path, "one\n")
	clk := newClock()
	tf, err := auth.NewTokenFile(auth.TokenFileOptions{Path: path, MaxAge: time.Minute, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if tok, _ := tf.Token(ctx); tok != "one" {
		t.Fatalf("token = %q, want one", tok)
	}
	writeFile(t, path, "two")
	clk.Add(30 * time.Second)
	if tok, _ := tf.Token(ctx); tok != "one" {
		t.Fatalf("within MaxAge: token = %q, want cached one", tok)
	}
	clk.Add(31 * time.Second)
	if tok, _ := tf.Token(ctx); tok != "two" {
		t.Fatalf("after MaxAge: token = %q, want two", tok)
	}
	os.Remove(path)
	clk.Add(2 * time.Minute)
	if tok, err := tf.Token(ctx); err != nil || tok != "two" {
		t.Fatalf("file gone: token = %q, %v; want previous token kept", tok, err)
	}
}

func TestTokenFileRetriesOnceOn401WhenTokenRotated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	writeFile(t, path, "old")
	tf, err := auth.NewTokenFile(auth.TokenFileOptions{Path: path, MaxAge: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	srv := &server{accept: "old"}
	rt := tf.WrapTransport(srv)
	if code := get(t, rt); code != 200 {
		t.Fatalf("code %d", code)
	}
	// Rotate: the server now accepts only the new token; the cache is stale.
	writeFile(t, path, "new")
	srv.setAccept("new")

	req, _ := http.NewRequest("POST", "https://example.invalid/api", bytes.NewReader([]byte("payload")))
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("after rotation: code %d, want 200 after one retry", resp.StatusCode)
	}
	want := []string{"Bearer old", "Bearer old", "Bearer new"}
	if fmt.Sprint(srv.seen) != fmt.Sprint(want) {
		t.Fatalf("headers %q, want %q", srv.seen, want)
	}
	if srv.bodies[2] != "payload" {
		t.Fatalf("retried body %q, want payload", srv.bodies[2])
	}
}

func TestTokenFileDoesNotRetryUnreplayableBody(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	writeFile(t, path, "old")
	tf, _ := auth.NewTokenFile(auth.TokenFileOptions{Path: path, MaxAge: time.Hour})
	srv := &server{accept: "new"}
	rt := tf.WrapTransport(srv)
	writeFile(t, path, "new")
	req, _ := http.NewRequest("POST", "https://example.invalid/api", io.NopCloser(strings.NewReader("x")))
	req.GetBody = nil
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || len(srv.seen) != 1 {
		t.Fatalf("code %d after %d sends; want the 401 returned without retry", resp.StatusCode, len(srv.seen))
	}
	// The next request uses the re-read token.
	if code := get(t, rt); code != 200 {
		t.Fatalf("next request code %d, want 200", code)
	}
}

func TestTokenFileKeepsExistingAuthorization(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	writeFile(t, path, "file-token")
	tf, _ := auth.NewTokenFile(auth.TokenFileOptions{Path: path})
	srv := &server{accept: "mine"}
	req, _ := http.NewRequest("GET", "https://example.invalid/", nil)
	req.Header.Set("Authorization", "Bearer mine")
	resp, err := tf.WrapTransport(srv).RoundTrip(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("resp %v err %v", resp, err)
	}
}

func TestTokenFileErrors(t *testing.T) {
	dir := t.TempDir()
	secret := "s3cr3t-token-value"
	tests := []struct {
		name    string
		content *string
		want    error
	}{
		{"missing file is fs.ErrNotExist", nil, os.ErrNotExist},
		{"empty file is ErrEmptyToken", ptr("  \n"), auth.ErrEmptyToken},
		{"newline inside token is ErrInvalidToken", ptr(secret + "\n" + secret), auth.ErrInvalidToken},
		{"huge file is ErrTooLarge", ptr(strings.Repeat("a", 1<<20+1)), auth.ErrTooLarge},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprint(i))
			if tt.content != nil {
				writeFile(t, path, *tt.content)
			}
			_, err := auth.NewTokenFile(auth.TokenFileOptions{Path: path})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("error leaks the token: %v", err)
			}
		})
	}
}

var testTime = newClock().Now()

func ptr[T any](v T) *T { return &v }

func TestBasicAndBearerNeverPrintSecrets(t *testing.T) {
	b := auth.Basic{Username: "alice", Password: "hunter2-password"}
	tok := auth.BearerToken{Token: "tok-abcdef-123"}
	for _, s := range []string{fmt.Sprint(b), fmt.Sprintf("%+v", b), fmt.Sprintf("%#v", b), fmt.Sprint(tok), fmt.Sprintf("%#v", tok), fmt.Sprintf("%+v", &tok)} {
		if strings.Contains(s, "hunter2") || strings.Contains(s, "abcdef") {
			t.Errorf("formatted value leaks a secret: %s", s)
		}
	}
	srv := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		u, p, ok := r.BasicAuth()
		if !ok || u != "alice" || p != "hunter2-password" {
			t.Errorf("basic auth = %q %q %v", u, p, ok)
		}
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	})
	get(t, b.WrapTransport(srv))
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func BenchmarkTokenFileRoundTrip(b *testing.B) {
	path := filepath.Join(b.TempDir(), "token")
	os.WriteFile(path, []byte("tok"), 0o600)
	tf, _ := auth.NewTokenFile(auth.TokenFileOptions{Path: path})
	rt := tf.WrapTransport(roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	}))
	req, _ := http.NewRequest("GET", "https://example.invalid/api", nil)
	b.ReportAllocs()
	for b.Loop() {
		rt.RoundTrip(req)
	}
}

func TestTokenFileLogsNoSecrets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	writeFile(t, path, "good-token")
	var logs bytes.Buffer
	clk := newClock()
	tf, err := auth.NewTokenFile(auth.TokenFileOptions{Path: path, Now: clk.Now, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, "leaked-secret\nleaked-secret")
	clk.Add(time.Hour)
	if tok, _ := tf.Token(context.Background()); tok != "good-token" {
		t.Fatalf("token %q, want the previous one kept", tok)
	}
	if !strings.Contains(logs.String(), "re-reading token file failed") || strings.Contains(logs.String(), "leaked-secret") || strings.Contains(logs.String(), "good-token") {
		t.Fatalf("log: %s", logs.String())
	}
	if _, err := auth.NewTokenFile(auth.TokenFileOptions{Path: "/dev/zero"}); !errors.Is(err, auth.ErrNotRegularFile) {
		t.Fatalf("device: err = %v, want ErrNotRegularFile", err)
	}
}
