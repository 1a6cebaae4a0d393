package rest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubego/kubego/internal/boundedread"
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
	// Rotated file: the token is re-read once it is TokenFileMaxAge old.
	write("token-two")
	mu.Lock()
	valid = "token-two"
	mu.Unlock()
	clock.Advance(TokenFileMaxAge + time.Second)
	if err := do(); err != nil {
		t.Fatal(err)
	}
	// Rotated again, within TokenFileMaxAge: the 401 makes the client re-read once
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

func TestBearerTokenFileErrors(t *testing.T) {
	dir := t.TempDir()
	secret := "s3cr3t-token-value"
	tests := []struct {
		name    string
		content *string // nil: no file
		path    string  // instead of a file in dir
		want    error
	}{
		{name: "missing file is fs.ErrNotExist", want: fs.ErrNotExist},
		{name: "empty file is ErrEmptyTokenFile", content: ptr("  \n"), want: ErrEmptyTokenFile},
		{name: "newline inside the token is ErrInvalidToken", content: ptr(secret + "\n" + secret), want: ErrInvalidToken},
		{name: "huge file is ErrTokenFileTooLarge", content: ptr(strings.Repeat("a", 1<<20+1)), want: ErrTokenFileTooLarge},
		{name: "a device is not read", path: "/dev/zero", want: boundedread.ErrNotRegular},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if path == "" {
				path = filepath.Join(dir, fmt.Sprint(i))
			}
			if tt.content != nil {
				if err := os.WriteFile(path, []byte(*tt.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			_, err := NewClient(&Config{Host: "https://x", BearerTokenFile: path})
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != "BearerTokenFile" {
				t.Fatalf("err = %v, want a *ConfigError for BearerTokenFile", err)
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("error leaks the token: %v", err)
			}
			if _, rerr := ReadTokenFile(path); !errors.Is(rerr, tt.want) {
				t.Fatalf("ReadTokenFile: err = %v, want %v", rerr, tt.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestBearerTokenFileRereadFailureKeepsTokenAndWarns(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("good-token"), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { got = append(got, r.Header.Get("Authorization")) })
	var logs bytes.Buffer
	c, clock := newTestClient(t, srv, func(cfg *Config) {
		cfg.BearerTokenFile, cfg.AllowInsecureAuth = file, true
		cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	if err := os.WriteFile(file, []byte("leaked-secret\nleaked-secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	clock.Advance(TokenFileMaxAge)
	for range 3 {
		if err := c.Get().AbsPath("/").Do(context.Background()).Error(); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(got, ",") != "Bearer good-token,Bearer good-token,Bearer good-token" {
		t.Fatalf("sent %q, want the previous token kept", got)
	}
	out := logs.String()
	if n := strings.Count(out, "level=WARN"); n != 1 {
		t.Fatalf("%d warnings, want one per failed re-read (not one per request):\n%s", n, out)
	}
	if !strings.Contains(out, "re-reading the bearer token file failed") || strings.Contains(out, "leaked-secret") || strings.Contains(out, "good-token") {
		t.Fatalf("log: %s", out)
	}
}

func TestConflictingCredentialsAreRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("tok"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		mod   func(*Config)
		field string // "" when valid
	}{
		{"bearer token alone", func(c *Config) { c.BearerToken = "t" }, ""},
		{"token file alone", func(c *Config) { c.BearerTokenFile = file }, ""},
		{"basic alone", func(c *Config) { c.Username, c.Password = "u", "p" }, ""},
		{"Auth alone", func(c *Config) { c.Auth = headerAuth("x") }, ""},
		{"token and token file", func(c *Config) { c.BearerToken, c.BearerTokenFile = "t", file }, "BearerTokenFile"},
		{"token and basic", func(c *Config) { c.BearerToken, c.Username = "t", "u" }, "Username/Password"},
		{"password alone with a token", func(c *Config) { c.BearerToken, c.Password = "t", "p" }, "Username/Password"},
		{"token file and Auth", func(c *Config) { c.BearerTokenFile, c.Auth = file, headerAuth("x") }, "Auth"},
		{"token and Auth", func(c *Config) { c.BearerToken, c.Auth = "t", headerAuth("x") }, "Auth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &Config{Host: "https://x"}
			tt.mod(cfg)
			err := cfg.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != tt.field || !errors.Is(err, ErrConflictingAuth) {
				t.Fatalf("err = %v, want a *ConfigError for %s wrapping ErrConflictingAuth", err, tt.field)
			}
			if strings.Contains(err.Error(), "t,") || strings.Contains(err.Error(), "\"p\"") {
				t.Fatalf("error quotes a secret: %v", err)
			}
		})
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
