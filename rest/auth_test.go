package rest

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

func TestCrossHostRedirectsAreRefusedWithoutSendingCredentials(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	other := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Get("Authorization"))
		mu.Unlock()
	})
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/stolen", http.StatusTemporaryRedirect)
		case "/same":
			http.Redirect(w, r, "/version", http.StatusFound)
		case "/version":
			if r.Header.Get("Authorization") != "Bearer s3cret-token" {
				w.WriteHeader(401)
				return
			}
			_, _ = w.Write([]byte(`{"gitVersion":"v1"}`))
		}
	})
	c, _ := newTestClient(t, srv, func(cfg *Config) { cfg.BearerToken = "s3cret-token"; cfg.AllowInsecureAuth = true })

	err := c.Get().AbsPath("/away").Do(context.Background()).Error()
	var re *RedirectError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want *RedirectError", err)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error leaks the token: %v", err)
	}
	mu.Lock()
	if len(leaked) != 0 {
		t.Errorf("other host received %d requests (%q)", len(leaked), leaked)
	}
	mu.Unlock()

	raw, err := c.Get().AbsPath("/same").DoRaw(context.Background())
	if err != nil || !strings.Contains(string(raw), "v1") {
		t.Errorf("same-host redirect: %s, %v", raw, err)
	}
}

func TestBearerTokenFileRotates(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	write := func(tok string) {
		if err := os.WriteFile(file, []byte(tok+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("token-one")
	var mu sync.Mutex
	valid := "token-one"
	var seen []string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		seen = append(seen, got)
		if got != valid {
			w.WriteHeader(401)
		}
	})
	c, clock := newTestClient(t, srv, func(cfg *Config) { cfg.BearerTokenFile = file; cfg.AllowInsecureAuth = true })
	do := func() error { return c.Post().AbsPath("/x").Body([]byte(`{}`)).Do(context.Background()).Error() }

	if err := do(); err != nil {
		t.Fatal(err)
	}
	// Rotated file, cache still fresh: the token is re-read after the TTL.
	write("token-two")
	mu.Lock()
	valid = "token-two"
	mu.Unlock()
	clock.Advance(tokenFileTTL + time.Second)
	if err := do(); err != nil {
		t.Fatal(err)
	}
	// Rotated again, within the TTL: the 401 makes the client re-read once
	// and retry (the body is replayed).
	write("token-three")
	mu.Lock()
	valid = "token-three"
	mu.Unlock()
	if err := do(); err != nil {
		t.Fatal(err)
	}
	// A token the server rejects and the file does not change: one attempt,
	// a 401 StatusError.
	mu.Lock()
	valid = "nobody"
	mu.Unlock()
	if err := do(); !apierrors.IsUnauthorized(err) {
		t.Errorf("err = %v, want Unauthorized", err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"token-one", "token-two", "token-two", "token-three", "token-three"}
	if strings.Join(seen, ",") != strings.Join(want, ",") {
		t.Errorf("tokens seen = %v, want %v", seen, want)
	}
}

func TestBearerTokenFileMissingIsAConfigError(t *testing.T) {
	_, err := NewClient(&Config{Host: "https://x", BearerTokenFile: filepath.Join(t.TempDir(), "none")})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Field != "BearerTokenFile" {
		t.Errorf("err = %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	_ = os.WriteFile(empty, nil, 0o600)
	_, err = NewClient(&Config{Host: "https://x", BearerTokenFile: empty})
	if !errors.Is(err, ErrEmptyTokenFile) {
		t.Errorf("err = %v", err)
	}
}

func TestBasicAuthAndAuthenticator(t *testing.T) {
	var got string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { got = r.Header.Get("Authorization") })
	c, _ := newTestClient(t, srv, func(cfg *Config) { cfg.Username, cfg.Password = "u", "p"; cfg.AllowInsecureAuth = true })
	_ = c.Get().AbsPath("/").Do(context.Background())
	if got != "Basic dTpw" {
		t.Errorf("basic = %q", got)
	}
	c, _ = newTestClient(t, srv, func(cfg *Config) {
		cfg.Auth = headerAuth("Bearer from-auth")
		cfg.BearerToken = "ignored"
		cfg.AllowInsecureAuth = true
	})
	_ = c.Get().AbsPath("/").Do(context.Background())
	if got != "Bearer from-auth" {
		t.Errorf("Auth = %q", got)
	}
}

type headerAuth string

func (h headerAuth) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	return rtFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", string(h))
		return rt.RoundTrip(r)
	})
}

type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestWrapTransportIsOutermostAndNeverSeesCredentials(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {})
	var sawAuth, sawUA bool
	c, _ := newTestClient(t, srv, func(cfg *Config) {
		cfg.BearerToken, cfg.AllowInsecureAuth = "tok", true
		cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
			return rtFunc(func(r *http.Request) (*http.Response, error) {
				sawAuth = r.Header.Get("Authorization") != ""
				sawUA = r.Header.Get("User-Agent") != ""
				return rt.RoundTrip(r)
			})
		}
	})
	if err := c.Get().AbsPath("/").Do(context.Background()).Error(); err != nil {
		t.Fatal(err)
	}
	if sawAuth || sawUA {
		t.Errorf("wrapper saw auth=%v ua=%v, want neither", sawAuth, sawUA)
	}
}
