package servingcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubego/kubego/internal/defaultlog/defaultlogtest"
)

// pair returns a self-signed certificate for name valid until notAfter, as
// PEM certificate and key.
func pair(t testing.TB, name string, notAfter time.Time) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name},
		DNSNames:     []string{name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     notAfter,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

func write(t testing.TB, dir string, cert, key []byte) (certFile, keyFile string) {
	t.Helper()
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(certFile, cert, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func served(t *testing.T, s *Source) string {
	t.Helper()
	c, err := s.GetCertificate(nil)
	if err != nil {
		t.Fatal(err)
	}
	return c.Leaf.Subject.CommonName
}

func TestSourceServesTheNewestPairThatLoads(t *testing.T) {
	dir := t.TempDir()
	c1, k1 := pair(t, "one", time.Now().Add(time.Hour))
	certFile, keyFile := write(t, dir, c1, k1)
	logs := defaultlogtest.Capture(t)
	s, err := New("test", certFile, keyFile, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	if got := served(t, s); got != "one" {
		t.Fatalf("served %q, want one", got)
	}

	c2, k2 := pair(t, "two", time.Now().Add(time.Hour))
	write(t, dir, c2, k2)
	if got := served(t, s); got != "two" {
		t.Fatalf("after rotation served %q, want two", got)
	}
	if !strings.Contains(logs.String(), "serving certificate reloaded") {
		t.Fatalf("no reload logged: %s", logs.String())
	}

	// A half-written rotation: the new certificate with the old key.
	c3, _ := pair(t, "three", time.Now().Add(time.Hour))
	write(t, dir, c3, k2)
	if got := served(t, s); got != "two" {
		t.Fatalf("with a mismatched pair served %q, want the previous two", got)
	}
	if n := strings.Count(logs.String(), "keeping the previous serving certificate"); n != 1 {
		t.Fatalf("the failure is logged %d times, want once", n)
	}
	served(t, s)
	if n := strings.Count(logs.String(), "keeping the previous serving certificate"); n != 1 {
		t.Fatalf("the failure is logged %d times after a second handshake, want once", n)
	}
}

func TestNewFails(t *testing.T) {
	valid, validKey := pair(t, "ok", time.Now().Add(time.Hour))
	tests := []struct {
		name      string
		cert, key []byte
		want      error
	}{
		{name: "missing files", want: os.ErrNotExist},
		{name: "key does not match", cert: valid, key: func() []byte { _, k := pair(t, "other", time.Now().Add(time.Hour)); return k }(), want: ErrNoCertificate},
		{name: "certificate over the limit", cert: make([]byte, MaxFileBytes+1), key: validKey, want: ErrFileTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
			if tt.cert != nil {
				certFile, keyFile = write(t, dir, tt.cert, tt.key)
			}
			_, err := New("test", certFile, keyFile, discard())
			if !errors.Is(err, tt.want) || !errors.Is(err, ErrNoCertificate) {
				t.Fatalf("err = %v, want %v and ErrNoCertificate", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "test: ") {
				t.Fatalf("err = %q, want the prefix", err)
			}
		})
	}
}

func TestCheckReportsAnExpiredCertificate(t *testing.T) {
	notAfter := time.Now().Add(time.Hour)
	c, k := pair(t, "ok", notAfter)
	certFile, keyFile := write(t, t.TempDir(), c, k)
	s, err := New("test", certFile, keyFile, discard())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(notAfter.Add(-time.Minute)); err != nil {
		t.Fatalf("before expiry: %v", err)
	}
	if err := s.Check(notAfter.Add(time.Minute)); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("after expiry: %v, want an expiry error", err)
	}
}

// BenchmarkCertificateAtHandshake is the cost the reloading adds to each
// TLS handshake when nothing changed: reading both files and comparing.
func BenchmarkCertificateAtHandshake(b *testing.B) {
	c, k := pair(b, "bench", time.Now().Add(time.Hour))
	certFile, keyFile := write(b, b.TempDir(), c, k)
	s, err := New("bench", certFile, keyFile, discard())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.GetCertificate(nil); err != nil {
			b.Fatal(err)
		}
	}
}
