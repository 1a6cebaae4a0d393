package certs

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubego/kubego/clock"
)

// fixedClock is a clock.Clock standing still at now.
type fixedClock struct{ now time.Time }

func (c fixedClock) Now() time.Time { return c.now }
func (c fixedClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	return time.AfterFunc(d, f)
}

func fixedClockOf(t time.Time) fixedClock { return fixedClock{t} }

func parse(t *testing.T, pemData []byte) *x509.Certificate {
	t.Helper()
	b, _ := pem.Decode(pemData)
	if b == nil {
		t.Fatal("no PEM block")
	}
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestIssuedCertificateVerifiesForItsNamesOnly(t *testing.T) {
	ca, err := NewCA(CAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := ca.Issue(ServingOptions{DNSNames: []string{"webhook.ns.svc"}, IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tls.X509KeyPair(pair.CertPEM, pair.KeyPEM); err != nil {
		t.Fatalf("key does not match certificate: %v", err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)
	leaf := parse(t, pair.CertPEM)
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"webhook.ns.svc", true},
		{"127.0.0.1", true},
		{"other.ns.svc", false},
		{"127.0.0.2", false},
	} {
		_, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: tc.name, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
		if (err == nil) != tc.ok {
			t.Errorf("verify for %s: err = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

func TestEachIssueHasAFreshKeyAndSerial(t *testing.T) {
	ca, err := NewCA(CAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := ca.Issue(ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	b, _ := ca.Issue(ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if parse(t, a.CertPEM).SerialNumber.Cmp(parse(t, b.CertPEM).SerialNumber) == 0 {
		t.Error("two certificates share a serial number")
	}
	if string(a.KeyPEM) == string(b.KeyPEM) {
		t.Error("two certificates share a key")
	}
}

func TestValidityFollowsTheClockAndOptions(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	ca, err := NewCA(CAOptions{Clock: fixedClockOf(now), CommonName: "test-ca", Validity: 48 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if ca.Cert.Subject.CommonName != "test-ca" || !ca.Cert.NotAfter.Equal(now.Add(48*time.Hour)) {
		t.Errorf("CA %q valid until %s, want test-ca until %s", ca.Cert.Subject.CommonName, ca.Cert.NotAfter, now.Add(48*time.Hour))
	}
	pair, _ := ca.Issue(ServingOptions{DNSNames: []string{"a"}, Validity: time.Hour})
	if got := parse(t, pair.CertPEM).NotAfter; !got.Equal(now.Add(time.Hour)) {
		t.Errorf("serving certificate valid until %s, want %s", got, now.Add(time.Hour))
	}
	pair, _ = ca.Issue(ServingOptions{DNSNames: []string{"a"}})
	if got := parse(t, pair.CertPEM).NotAfter; !got.Equal(now.Add(30 * 24 * time.Hour)) {
		t.Errorf("default validity ends %s, want 30 days", got)
	}
}

func TestIssueWithoutNamesFails(t *testing.T) {
	ca, err := NewCA(CAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ca.Issue(ServingOptions{}); !errors.Is(err, ErrNoNames) {
		t.Fatalf("err = %v, want ErrNoNames", err)
	}
}

func TestWriteReplacesBothFilesAndKeepsTheKeyPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "certs")
	ca, _ := NewCA(CAOptions{})
	first, _ := ca.Issue(ServingOptions{DNSNames: []string{"a"}})
	second, _ := ca.Issue(ServingOptions{DNSNames: []string{"a"}})
	if _, err := Write(dir, first); err != nil {
		t.Fatal(err)
	}
	files, err := Write(dir, second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tls.LoadX509KeyPair(files.CertFile, files.KeyFile); err != nil {
		t.Fatal(err)
	}
	cert, _ := os.ReadFile(files.CertFile)
	if string(cert) != string(second.CertPEM) {
		t.Error("certificate file was not replaced")
	}
	st, err := os.Stat(files.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("dir holds %d entries, want tls.crt and tls.key only", len(entries))
	}
}
