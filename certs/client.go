package certs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"time"
)

// ErrNoCommonName is returned by IssueClient for a client certificate
// without a CommonName: kube-apiserver takes the user name from it.
var ErrNoCommonName = errors.New("certs: a client certificate needs a CommonName (the user name)")

// ClientOptions configure one client certificate, as kube-apiserver reads
// it: CommonName is the user, Organization the groups.
type ClientOptions struct {
	// CommonName is the user name; required.
	CommonName string
	// Organization lists the user's groups (for example "system:masters").
	Organization []string
	// Validity is how long the certificate is valid; zero means 30 days.
	Validity time.Duration
}

// IssueClient makes a client certificate (client authentication) signed by
// the CA, with a fresh key and a fresh random serial number.
func (ca *CA) IssueClient(opts ClientOptions) (KeyPair, error) {
	if opts.CommonName == "" {
		return KeyPair{}, ErrNoCommonName
	}
	return ca.sign(&x509.Certificate{
		Subject:     pkix.Name{CommonName: opts.CommonName, Organization: append([]string(nil), opts.Organization...)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, opts.Validity)
}

// sign completes tmpl (serial, validity from now, key usage), signs it
// with a fresh ECDSA P-256 key and returns the pair as PEM.
func (ca *CA) sign(tmpl *x509.Certificate, validity time.Duration) (KeyPair, error) {
	if validity <= 0 {
		validity = 30 * 24 * time.Hour
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return KeyPair{}, fmt.Errorf("certs: key: %w", err)
	}
	serial, err := newSerial()
	if err != nil {
		return KeyPair{}, err
	}
	now := ca.clock.Now()
	tmpl.SerialNumber = serial
	tmpl.NotBefore = now.Add(-5 * time.Minute)
	tmpl.NotAfter = now.Add(validity)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		return KeyPair{}, fmt.Errorf("certs: signing certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return KeyPair{}, fmt.Errorf("certs: encoding key: %w", err)
	}
	return KeyPair{CertPEM: pemBlock("CERTIFICATE", der), KeyPEM: pemBlock("PRIVATE KEY", keyDER)}, nil
}
