package webhook_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubego/kubego/certs"
	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/webhook"
)

// tlsEnv is a CA and a serving pair written to a directory.
type tlsEnv struct {
	ca    *certs.CA
	dir   string
	files certs.Files
}

func newTLSEnv(t testing.TB) *tlsEnv {
	t.Helper()
	ca, err := certs.NewCA(certs.CAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e := &tlsEnv{ca: ca, dir: t.TempDir()}
	e.rotate(t)
	return e
}

// rotate writes a fresh serving pair and returns its serial number.
func (e *tlsEnv) rotate(t testing.TB) string {
	t.Helper()
	pair, err := e.ca.Issue(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if e.files, err = certs.Write(e.dir, pair); err != nil {
		t.Fatal(err)
	}
	c, _ := tls.X509KeyPair(pair.CertPEM, pair.KeyPEM)
	leaf, _ := x509.ParseCertificate(c.Certificate[0])
	return leaf.SerialNumber.String()
}

func (e *tlsEnv) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AppendCertsFromPEM(e.ca.CertPEM)
	return p
}

// serve starts srv and stops it at cleanup, failing the test if Start
// returns an error.
func serve(t *testing.T, srv *webhook.Server) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start: %v", err)
		}
	})
	select {
	case <-srv.Serving():
	case err := <-done:
		t.Fatalf("Start: %v", err)
	}
	return "https://" + srv.Addr().String()
}

func newServer(t *testing.T, e *tlsEnv, opts webhook.Options) *webhook.Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opts.Listener, opts.CertFile, opts.KeyFile = ln, e.files.CertFile, e.files.KeyFile
	srv, err := webhook.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// servedSerial opens a new TLS connection and returns the serial number of
// the certificate served.
func servedSerial(t *testing.T, e *tlsEnv, addr string) string {
	t.Helper()
	conn, err := tls.Dial("tcp", strings.TrimPrefix(addr, "https://"), &tls.Config{RootCAs: e.pool()})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.String()
}

func client(e *tlsEnv) *http.Client {
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: e.pool()}}}
}

func post(t *testing.T, c *http.Client, url, body string) (int, string) {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestNewRequiresCertificateFiles(t *testing.T) {
	e := newTLSEnv(t)
	for _, tc := range []struct {
		name string
		opts webhook.Options
		want error
	}{
		{"no files", webhook.Options{}, webhook.ErrInvalidOptions},
		{"a certificate file without its key", webhook.Options{CertFile: e.files.CertFile}, webhook.ErrInvalidOptions},
		{"files and GetCertificate", webhook.Options{CertFile: e.files.CertFile, KeyFile: e.files.KeyFile, GetCertificate: (&memSource{}).get}, webhook.ErrInvalidOptions},
		{"negative limit", webhook.Options{CertFile: e.files.CertFile, KeyFile: e.files.KeyFile, MaxBodyBytes: -1}, webhook.ErrInvalidOptions},
		{"missing file", webhook.Options{CertFile: e.dir + "/nope.crt", KeyFile: e.files.KeyFile}, os.ErrNotExist},
		{"key for another certificate", webhook.Options{CertFile: e.files.CertFile, KeyFile: writeOtherKey(t, e)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := webhook.New(tc.opts)
			if err == nil {
				t.Fatal("New succeeded")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func writeOtherKey(t *testing.T, e *tlsEnv) string {
	pair, err := e.ca.Issue(certs.ServingOptions{DNSNames: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	p := t.TempDir() + "/other.key"
	if err := os.WriteFile(p, pair.KeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestServesHandlersOverHTTPSOnly(t *testing.T) {
	e := newTLSEnv(t)
	srv := newServer(t, e, webhook.Options{})
	srv.Handle("/hello", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hi") }))
	url := serve(t, srv)
	if code, body := post(t, client(e), url+"/hello", ""); code != 200 || body != "hi" {
		t.Fatalf("got %d %q, want 200 hi", code, body)
	}
	resp, err := http.Get("http" + strings.TrimPrefix(url, "https") + "/hello")
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Fatal("plain HTTP was served")
		}
	}
}

// After a rotation new connections get the new certificate; a broken pair
// written in between leaves the previous one in service.
func TestNewConnectionsGetTheRotatedCertificate(t *testing.T) {
	e := newTLSEnv(t)
	srv := newServer(t, e, webhook.Options{})
	url := serve(t, srv)
	first := servedSerial(t, e, url)
	second := e.rotate(t)
	if second == first {
		t.Fatal("rotation made the same serial")
	}
	if got := servedSerial(t, e, url); got != second {
		t.Fatalf("after rotation served serial %s, want %s", got, second)
	}
	// A key that does not match: the previous pair stays in service.
	if err := os.WriteFile(e.files.KeyFile, mustIssue(t, e).KeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := servedSerial(t, e, url); got != second {
		t.Fatalf("with a mismatched key served serial %s, want the previous %s", got, second)
	}
	if err := srv.ReadyCheck(nil); err != nil {
		t.Fatalf("ReadyCheck with the previous pair in service: %v", err)
	}
	third := e.rotate(t)
	if got := servedSerial(t, e, url); got != third {
		t.Fatalf("after repair served serial %s, want %s", got, third)
	}
}

func mustIssue(t *testing.T, e *tlsEnv) certs.KeyPair {
	pair, err := e.ca.Issue(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	return pair
}

func TestRequestRules(t *testing.T) {
	e := newTLSEnv(t)
	srv := newServer(t, e, webhook.Options{MaxBodyBytes: 16, RequestTimeout: 50 * time.Millisecond})
	srv.Handle("/read", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				http.Error(w, "too large", http.StatusRequestEntityTooLarge)
				return
			}
		}
		io.WriteString(w, "read")
	}))
	srv.Handle("/panic", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	srv.Handle("/deadline", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		io.WriteString(w, context.Cause(r.Context()).Error())
	}))
	url := serve(t, srv)
	c := client(e)
	for _, tc := range []struct {
		name, path, body string
		code             int
		contains         string
	}{
		{"a body within the limit is read", "/read", "small", 200, "read"},
		{"a body over the limit fails to read", "/read", strings.Repeat("x", 17), 413, "too large"},
		{"a panic becomes a 500 with its value", "/panic", "", 500, "boom"},
		{"the context ends with the request timeout", "/deadline", "", 200, webhook.ErrRequestTimeout.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := post(t, c, url+tc.path, tc.body)
			if code != tc.code || !strings.Contains(body, tc.contains) {
				t.Fatalf("got %d %q, want %d containing %q", code, body, tc.code, tc.contains)
			}
		})
	}
}

func TestReadyOnlyWhileServing(t *testing.T) {
	e := newTLSEnv(t)
	srv := newServer(t, e, webhook.Options{})
	if err := srv.ReadyCheck(nil); !errors.Is(err, webhook.ErrNotServing) {
		t.Fatalf("before Start: %v, want ErrNotServing", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	<-srv.Serving()
	if err := srv.ReadyCheck(nil); err != nil {
		t.Fatalf("while serving: %v", err)
	}
	if err := srv.Start(ctx); !errors.Is(err, webhook.ErrAlreadyStarted) {
		t.Fatalf("second Start: %v, want ErrAlreadyStarted", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Start: %v", err)
	}
	if err := srv.ReadyCheck(nil); !errors.Is(err, webhook.ErrNotServing) {
		t.Fatalf("after stop: %v, want ErrNotServing", err)
	}
}

func TestShutdownLetsRequestsInFlightFinish(t *testing.T) {
	e := newTLSEnv(t)
	srv := newServer(t, e, webhook.Options{})
	entered, release := make(chan struct{}), make(chan struct{})
	srv.Handle("/slow", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		io.WriteString(w, "done")
	}))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	<-srv.Serving()
	url := "https://" + srv.Addr().String()
	got := make(chan string, 1)
	go func() {
		resp, err := client(e).Post(url+"/slow", "text/plain", nil)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- string(b)
	}()
	<-entered
	cancel()
	select {
	case err := <-done:
		t.Fatalf("Start returned %v with a request in flight", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if body := <-got; body != "done" {
		t.Fatalf("request in flight got %q, want done", body)
	}
	if err := <-done; err != nil {
		t.Fatalf("Start: %v", err)
	}
}

// memSource is a GetCertificate source held in memory.
type memSource struct {
	mu   sync.Mutex
	cert *tls.Certificate
}

func (m *memSource) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cert == nil {
		return nil, errors.New("nothing yet")
	}
	return m.cert, nil
}

func (m *memSource) set(t *testing.T, pair certs.KeyPair) string {
	t.Helper()
	c, err := tls.X509KeyPair(pair.CertPEM, pair.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	m.cert = &c
	m.mu.Unlock()
	return c.Leaf.SerialNumber.String()
}

// A server given GetCertificate serves what it returns at each new
// connection, and is not ready while it returns nothing or an expired
// certificate.
func TestGetCertificateServesFromMemory(t *testing.T) {
	e := newTLSEnv(t)
	src := &memSource{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	srv, err := webhook.New(webhook.Options{Listener: ln, GetCertificate: src.get, Clock: fixedClock{&now}})
	if err != nil {
		t.Fatal(err)
	}
	url := serve(t, srv)
	if err := srv.ReadyCheck(nil); !errors.Is(err, webhook.ErrNoCertificate) {
		t.Fatalf("ReadyCheck without a certificate: %v, want ErrNoCertificate", err)
	}
	for range 2 {
		serial := src.set(t, mustIssue(t, e))
		if got := servedSerial(t, e, url); got != serial {
			t.Fatalf("served serial %s, want %s", got, serial)
		}
		if err := srv.ReadyCheck(nil); err != nil {
			t.Fatalf("ReadyCheck: %v", err)
		}
	}
	now = now.Add(31 * 24 * time.Hour)
	if err := srv.ReadyCheck(nil); !errors.Is(err, webhook.ErrCertificateExpired) {
		t.Fatalf("ReadyCheck with an expired certificate: %v, want ErrCertificateExpired", err)
	}
}

// fixedClock is a clock.Clock whose Now the test sets.
type fixedClock struct{ now *time.Time }

func (c fixedClock) Now() time.Time { return *c.now }
func (c fixedClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	return time.AfterFunc(d, f)
}
