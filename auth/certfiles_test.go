package auth_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubego/kubego/auth"
)

func cn(t *testing.T, c *tls.Certificate) string {
	t.Helper()
	x, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return x.Subject.CommonName
}

func TestCertFilesReloadWhenFilesChange(t *testing.T) {
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	c1, k1 := newPair(t, "first")
	c2, k2 := newPair(t, "second")
	os.WriteFile(certPath, c1, 0o600)
	os.WriteFile(keyPath, k1, 0o600)
	cf, err := auth.NewCertFiles(auth.CertFilesOptions{CertFile: certPath, KeyFile: keyPath})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := cf.GetClientCertificate(nil)
	if cn(t, got) != "first" {
		t.Fatalf("cn %s", cn(t, got))
	}

	// Half-way through a rotation: new cert, old key. Keep the old pair.
	os.WriteFile(certPath, c2, 0o600)
	future := time.Now().Add(time.Minute)
	os.Chtimes(certPath, future, future)
	got, err = cf.GetClientCertificate(nil)
	if err != nil || cn(t, got) != "first" {
		t.Fatalf("mismatched pair: got %v, %v; want the previous pair", got, err)
	}
	os.WriteFile(keyPath, k2, 0o600)
	os.Chtimes(keyPath, future, future)
	got, _ = cf.GetClientCertificate(nil)
	if cn(t, got) != "second" {
		t.Fatalf("after rotation cn = %s, want second", cn(t, got))
	}
}

func TestCertFilesRejectsMismatchedPair(t *testing.T) {
	dir := t.TempDir()
	c1, _ := newPair(t, "a")
	_, k2 := newPair(t, "b")
	certPath, keyPath := filepath.Join(dir, "c"), filepath.Join(dir, "k")
	os.WriteFile(certPath, c1, 0o600)
	os.WriteFile(keyPath, k2, 0o600)
	_, err := auth.NewCertFiles(auth.CertFilesOptions{CertFile: certPath, KeyFile: keyPath})
	if !errors.Is(err, auth.ErrInvalidCertificate) {
		t.Fatalf("err = %v, want ErrInvalidCertificate", err)
	}
	_, err = auth.NewCertFiles(auth.CertFilesOptions{CertFile: certPath, KeyFile: filepath.Join(dir, "missing")})
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want ErrNotExist", err)
	}
}
