package certs_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"testing"
	"time"

	"github.com/kubego/kubego/certs"
	"github.com/kubego/kubego/clock/clocktest"
)

func TestLoadCA(t *testing.T) {
	ca, err := certs.NewCA(certs.CAOptions{CommonName: "kept", Validity: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := ca.Pair()
	if err != nil {
		t.Fatal(err)
	}
	other, err := certs.NewCA(certs.CAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	otherPair, err := other.Pair()
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue(certs.ServingOptions{DNSNames: []string{"svc"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pair certs.KeyPair
		at   time.Time
		ok   bool
	}{
		{"a CA's own pair loads", pair, time.Now(), true},
		{"a key of another CA is refused", certs.KeyPair{CertPEM: pair.CertPEM, KeyPEM: otherPair.KeyPEM}, time.Now(), false},
		{"a serving certificate is not a CA", leaf, time.Now(), false},
		{"an expired CA is refused", pair, time.Now().Add(2 * time.Hour), false},
		{"garbage is refused", certs.KeyPair{CertPEM: []byte("not pem"), KeyPEM: pair.KeyPEM}, time.Now(), false},
		{"a missing key is refused", certs.KeyPair{CertPEM: pair.CertPEM}, time.Now(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loaded, err := certs.LoadCA(tc.pair, certs.CAOptions{Clock: clocktest.New(tc.at)})
			if !tc.ok {
				if !errors.Is(err, certs.ErrInvalidCA) {
					t.Fatalf("LoadCA = %v, want ErrInvalidCA", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// What the loaded CA issues, the original's certificate trusts.
			issued, err := loaded.Issue(certs.ServingOptions{DNSNames: []string{"svc"}})
			if err != nil {
				t.Fatal(err)
			}
			verify(t, ca.CertPEM, issued, "svc", x509.ExtKeyUsageServerAuth)
		})
	}
}

func TestIssueClient(t *testing.T) {
	ca, err := certs.NewCA(certs.CAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ca.IssueClient(certs.ClientOptions{}); !errors.Is(err, certs.ErrNoCommonName) {
		t.Fatalf("IssueClient without a name = %v, want ErrNoCommonName", err)
	}
	pair, err := ca.IssueClient(certs.ClientOptions{CommonName: "admin", Organization: []string{"system:masters"}})
	if err != nil {
		t.Fatal(err)
	}
	cert := verify(t, ca.CertPEM, pair, "", x509.ExtKeyUsageClientAuth)
	if cert.Subject.CommonName != "admin" || len(cert.Subject.Organization) != 1 || cert.Subject.Organization[0] != "system:masters" {
		t.Fatalf("subject %v, want admin in system:masters", cert.Subject)
	}
}

// verify checks pair against the CA certificate for usage (and DNS name,
// when given) and returns its certificate.
func verify(t *testing.T, caPEM []byte, pair certs.KeyPair, name string, usage x509.ExtKeyUsage) *x509.Certificate {
	t.Helper()
	tc, err := tls.X509KeyPair(pair.CertPEM, pair.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(tc.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: name, KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
		t.Fatal(err)
	}
	return cert
}
