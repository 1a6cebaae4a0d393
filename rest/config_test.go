package rest

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigValidation(t *testing.T) {
	cert, key := selfSigned(t)
	other, _ := selfSigned(t)
	_, otherKey := selfSigned(t)
	_ = other
	tests := []struct {
		name      string
		cfg       Config
		wantField string
	}{
		{"missing host", Config{}, "Host"},
		{"bad scheme", Config{Host: "ftp://x"}, "Host"},
		{"user info in host", Config{Host: "https://admin:hunter2@x"}, "Host"},
		{"query in host", Config{Host: "https://x?a=b"}, "Host"},
		{"no host name", Config{Host: "https://"}, "Host"},
		{"bearer over http", Config{Host: "http://x", BearerToken: "t"}, "BearerToken"},
		{"token file over http", Config{Host: "http://x", BearerTokenFile: "/f"}, "BearerToken"},
		{"basic over http", Config{Host: "http://x", Username: "u", Password: "p"}, "Username"},
		{"authenticator over http", Config{Host: "http://x", Auth: noopAuth{}}, "Auth"},
		{"ok authenticator over http when allowed", Config{Host: "http://x", Auth: noopAuth{}, AllowInsecureAuth: true}, ""},
		{"password without user", Config{Host: "https://x", Password: "p"}, "Password"},
		{"insecure with CA", Config{Host: "https://x", TLS: TLSConfig{Insecure: true, CAData: cert}}, "TLS.Insecure"},
		{"insecure with CA file", Config{Host: "https://x", TLS: TLSConfig{Insecure: true, CAFile: "/ca"}}, "TLS.Insecure"},
		{"cert without key", Config{Host: "https://x", TLS: TLSConfig{CertData: cert}}, "TLS.KeyData"},
		{"key without cert", Config{Host: "https://x", TLS: TLSConfig{KeyData: key}}, "TLS.CertData"},
		{"TLS over http", Config{Host: "http://x", TLS: TLSConfig{CAData: cert}}, "TLS"},
		{"impersonate groups without user", Config{Host: "https://x", Impersonate: Impersonation{Groups: []string{"g"}}}, "Impersonate.UserName"},
		{"negative timeout", Config{Host: "https://x", Timeout: -1}, "Timeout"},
		{"unknown content type", Config{Host: "https://x", ContentType: 9}, "ContentType"},
		{"user agent with newline", Config{Host: "https://x", UserAgent: "a\nb"}, "UserAgent"},
		{"bad CA", Config{Host: "https://x", TLS: TLSConfig{CAData: []byte("not pem")}}, "TLS.CAData"},
		{"mismatched key pair", Config{Host: "https://x", TLS: TLSConfig{CertData: cert, KeyData: otherKey}}, "TLS.CertData"},
		{"unreadable CA file", Config{Host: "https://x", TLS: TLSConfig{CAFile: "/does/not/exist"}}, "TLS.CAFile"},
		{"ok https", Config{Host: "https://x", BearerToken: "t"}, ""},
		{"ok host without scheme", Config{Host: "x:6443"}, ""},
		{"ok bearer over http when allowed", Config{Host: "http://x", BearerToken: "t", AllowInsecureAuth: true}, ""},
		{"ok client cert", Config{Host: "https://x", TLS: TLSConfig{CertData: cert, KeyData: key, CAData: cert}}, ""},
		{"proxy func and proxy URL", Config{Host: "https://x", Proxy: http.ProxyFromEnvironment, ProxyURL: &url.URL{Scheme: "http", Host: "p:3128"}}, "ProxyURL"},
		{"proxy URL with a bad scheme", Config{Host: "https://x", ProxyURL: &url.URL{Scheme: "ftp", Host: "p"}}, "ProxyURL"},
		{"proxy URL without a host", Config{Host: "https://x", ProxyURL: &url.URL{Scheme: "http"}}, "ProxyURL"},
		{"ok proxy URL", Config{Host: "https://x", ProxyURL: &url.URL{Scheme: "socks5", Host: "p:1080"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewClient(&tt.cfg)
			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("NewClient: %v", err)
				}
				return
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *ConfigError", err)
			}
			if ce.Field != tt.wantField {
				t.Errorf("field = %q, want %q (%v)", ce.Field, tt.wantField, err)
			}
			for _, secret := range []string{"hunter2", string(key), string(otherKey)} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error leaks a secret: %v", err)
				}
			}
		})
	}
	if _, err := NewClient(nil); err == nil {
		t.Error("nil config accepted")
	}
}

func TestConfigPrintingRedactsSecrets(t *testing.T) {
	cert, key := selfSigned(t)
	cfg := Config{
		Host:        "https://example.test",
		BearerToken: "bearer-SECRET-1",
		Username:    "admin",
		Password:    "password-SECRET-2",
		TLS:         TLSConfig{CertData: cert, KeyData: key, CAData: cert},
		ProxyURL:    &url.URL{Scheme: "http", User: url.UserPassword("proxyuser", "proxy-SECRET-3"), Host: "proxy:3128"},
	}
	secrets := []string{"bearer-SECRET-1", "password-SECRET-2", "proxy-SECRET-3", string(key), strings.Split(string(key), "\n")[1]}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("cfg", "config", cfg, "ptr", &cfg, "tls", cfg.TLS)
	slog.New(slog.NewTextHandler(&logged, nil)).Info("cfg", "config", cfg, "tls", cfg.TLS)
	outputs := map[string]string{
		"String":   cfg.String(),
		"GoString": cfg.GoString(),
		"%v":       fmt.Sprintf("%v", cfg),
		"%+v":      fmt.Sprintf("%+v", cfg),
		"%#v":      fmt.Sprintf("%#v", cfg),
		"%s ptr":   fmt.Sprintf("%s", &cfg),
		"%v ptr":   fmt.Sprintf("%v", &cfg),
		"%d":       fmt.Sprintf("%d", cfg),
		"%x":       fmt.Sprintf("%x", cfg),
		"TLS %v":   fmt.Sprintf("%v", cfg.TLS),
		"TLS %#v":  fmt.Sprintf("%#v", cfg.TLS),
		"slog":     logged.String(),
	}
	for name, out := range outputs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%s leaks a secret: %s", name, out)
			}
		}
		if !strings.Contains(out, "example.test") && !strings.HasPrefix(name, "TLS") {
			t.Errorf("%s lacks the host: %s", name, out)
		}
	}
	if !strings.Contains(cfg.String(), redacted) || !strings.Contains(cfg.String(), "admin") {
		t.Errorf("String = %s", cfg.String())
	}
}

func TestClientsFromEqualConfigsShareATransport(t *testing.T) {
	cert, _ := selfSigned(t)
	base := func(c *Client) http.RoundTripper { return baseTransport(t, c) }
	mk := func(cfg Config) *Client {
		c, err := NewClient(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a := mk(Config{Host: "https://x", TLS: TLSConfig{CAData: cert}, BearerToken: "a"})
	b := mk(Config{Host: "https://y", TLS: TLSConfig{CAData: append([]byte(nil), cert...)}, BearerToken: "b", UserAgent: "other"})
	if base(a) != base(b) {
		t.Error("equal transport settings did not share a transport")
	}
	if d := mk(Config{Host: "https://x", TLS: TLSConfig{CAData: cert}, DisableHTTP2: true}); base(d) == base(a) {
		t.Error("different HTTP/2 setting shared a transport")
	}
	if d := mk(Config{Host: "https://x", TLS: TLSConfig{Insecure: true}}); base(d) == base(a) {
		t.Error("different TLS setting shared a transport")
	}
	proxy := func(*http.Request) (*url.URL, error) { return nil, nil }
	p1 := mk(Config{Host: "https://x", TLS: TLSConfig{CAData: cert}, Proxy: proxy})
	p2 := mk(Config{Host: "https://x", TLS: TLSConfig{CAData: cert}, Proxy: proxy})
	if base(p1) == base(p2) || base(p1) == base(a) {
		t.Error("configs with a Proxy func must get their own transport")
	}
	pu := &url.URL{Scheme: "http", Host: "proxy:3128"}
	u1 := mk(Config{Host: "https://x", TLS: TLSConfig{CAData: cert}, ProxyURL: pu})
	u2 := mk(Config{Host: "https://x", TLS: TLSConfig{CAData: cert}, ProxyURL: &url.URL{Scheme: "http", Host: "proxy:3128"}})
	u3 := mk(Config{Host: "https://x", TLS: TLSConfig{CAData: cert}, ProxyURL: &url.URL{Scheme: "http", Host: "other:3128"}})
	if base(u1) != base(u2) || base(u1) == base(a) || base(u1) == base(u3) {
		t.Error("configs must share a transport exactly when their ProxyURLs are equal")
	}
	src := &certSource{}
	c1 := mk(Config{Host: "https://x", TLS: TLSConfig{CAData: cert, ClientCertificates: src}})
	c2 := mk(Config{Host: "https://x", TLS: TLSConfig{CAData: cert, ClientCertificates: src}})
	c3 := mk(Config{Host: "https://x", TLS: TLSConfig{CAData: cert, ClientCertificates: &certSource{}}})
	if base(c1) != base(c2) || base(c1) == base(a) || base(c1) == base(c3) {
		t.Error("configs must share a transport exactly when they hold the same certificate source")
	}
	fn := ClientCertificateFunc(src.GetClientCertificate)
	f1 := mk(Config{Host: "https://x", TLS: TLSConfig{CAData: cert, ClientCertificates: fn}})
	f2 := mk(Config{Host: "https://x", TLS: TLSConfig{CAData: cert, ClientCertificates: fn}})
	if base(f1) == base(f2) {
		t.Error("configs with a ClientCertificateFunc must get their own transport")
	}
	if transports.Len() == 0 {
		t.Error("cache empty")
	}
}

// baseTransport digs the shared *http.Transport out of a client's chain.
func baseTransport(t *testing.T, c *Client) http.RoundTripper {
	t.Helper()
	rt := c.http.Transport
	for {
		switch x := rt.(type) {
		case *userAgentRT:
			rt = x.next
		case *bearerRT:
			rt = x.next
		case *basicRT:
			rt = x.next
		case *impersonateRT:
			rt = x.next
		case authRecorder:
			rt = x.next
		case *http.Transport:
			return x
		default:
			t.Fatalf("unexpected round tripper %T", rt)
		}
	}
}

func TestHTTP2WithHealthPingsOverTLS(t *testing.T) {
	cert, key := selfSigned(t)
	var proto string
	var clientCerts int
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto = r.Proto
		clientCerts = len(r.TLS.PeerCertificates)
	}))
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	_ = os.WriteFile(certFile, cert, 0o600)
	_ = os.WriteFile(keyFile, key, 0o600)
	c, _ := newTestClient(t, srv, func(cfg *Config) { cfg.TLS.CertFile, cfg.TLS.KeyFile = certFile, keyFile })
	if err := c.Get().AbsPath("/").Do(context.Background()).Error(); err != nil {
		t.Fatal(err)
	}
	if proto != "HTTP/2.0" {
		t.Errorf("proto = %q, want HTTP/2.0", proto)
	}
	if clientCerts != 1 {
		t.Errorf("client presented %d certificates", clientCerts)
	}
	tr := baseTransport(t, c).(*http.Transport)
	if tr.HTTP2 == nil || tr.HTTP2.SendPingTimeout != defaultHealthPingInterval || tr.HTTP2.PingTimeout != defaultPingTimeout {
		t.Errorf("HTTP2 config = %+v", tr.HTTP2)
	}
	// Wrong CA: a TLS failure is a TransportError.
	c2, err := NewClient(&Config{Host: srv.URL, TLS: TLSConfig{CAData: cert}, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	var te *TransportError
	if err := c2.Get().AbsPath("/").Do(context.Background()).Error(); !errors.As(err, &te) {
		t.Errorf("err = %v, want *TransportError", err)
	}
}

func TestRefusedConnectionIsATransportError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close()
	c, err := NewClient(&Config{Host: addr})
	if err != nil {
		t.Fatal(err)
	}
	var te *TransportError
	if err := c.Get().Resource("pods").Do(context.Background()).Error(); !errors.As(err, &te) {
		t.Errorf("err = %T %v", err, err)
	}
}

type recordWarnings struct{ got []string }

func (r *recordWarnings) HandleWarning(code int, agent, text string) { r.got = append(r.got, text) }

func TestWarningsGoToTheHandler(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Warning", `299 - "deprecated API"`)
		w.Header().Add("Warning", `299 - "another"`)
	})
	rec := &recordWarnings{}
	c, _ := newTestClient(t, srv, func(cfg *Config) { cfg.WarningHandler = rec })
	res := c.Get().Resource("pods").Do(context.Background())
	if len(res.Warnings()) != 2 || strings.Join(rec.got, "|") != "deprecated API|another" {
		t.Errorf("warnings %v, handler %v", res.Warnings(), rec.got)
	}
	var logs bytes.Buffer
	c, _ = newTestClient(t, srv, func(cfg *Config) { cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	for range 3 {
		_ = c.Get().Resource("pods").Do(context.Background())
	}
	if n := strings.Count(logs.String(), "deprecated API"); n != 1 {
		t.Errorf("default handler logged the message %d times:\n%s", n, logs.String())
	}
}

// noopAuth is an Authenticator that adds nothing.
type noopAuth struct{}

func (noopAuth) WrapTransport(rt http.RoundTripper) http.RoundTripper { return rt }

// certSource is a comparable ClientCertificateSource (a pointer).
type certSource struct{ _ int }

func (*certSource) GetClientCertificate(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	return &tls.Certificate{}, nil
}
