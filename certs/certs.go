package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"time"

	"github.com/kubego/kubego/clock"
)

// ErrNoNames is returned by Issue when a serving certificate would have
// neither a DNS name nor an IP address.
var ErrNoNames = errors.New("certs: a serving certificate needs at least one DNS name or IP address")

// CAOptions configure NewCA. The zero value makes a CA named
// "kubego-webhook-ca", valid for a year from now on the wall clock.
type CAOptions struct {
	// CommonName is the CA's subject; empty means "kubego-webhook-ca".
	CommonName string
	// Validity is how long the CA is valid; zero means one year.
	Validity time.Duration
	// Clock dates the certificate; nil is the wall clock.
	Clock clock.Clock
}

// CA is a certificate authority held in memory. It is immutable after
// NewCA and safe for concurrent use.
type CA struct {
	// Cert is the CA certificate.
	Cert *x509.Certificate
	// CertPEM is Cert in PEM form: the caBundle of a webhook configuration.
	CertPEM []byte

	key   crypto.Signer
	clock clock.Clock
}

// ServingOptions configure one serving certificate. DNSNames or IPs must
// name at least one identity.
type ServingOptions struct {
	// DNSNames the certificate is valid for (for example
	// "webhook.ns.svc").
	DNSNames []string
	// IPs the certificate is valid for (for example 127.0.0.1).
	IPs []net.IP
	// Validity is how long the certificate is valid; zero means 30 days.
	Validity time.Duration
}

// KeyPair is a certificate and its private key, both PEM. Printed with
// fmt, log/slog or encoding/json it shows the certificate's size and not
// the key; Write stores both.
type KeyPair struct {
	CertPEM []byte
	KeyPEM  []byte
}

// String describes p without its key.
func (p KeyPair) String() string {
	return fmt.Sprintf("certs.KeyPair{CertPEM: %d bytes, KeyPEM: [redacted]}", len(p.CertPEM))
}

// GoString is like String.
func (p KeyPair) GoString() string { return p.String() }

// Format makes every fmt verb print String.
func (p KeyPair) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte(p.String())) }

// LogValue makes log/slog print String.
func (p KeyPair) LogValue() slog.Value { return slog.StringValue(p.String()) }

// MarshalJSON encodes String as a JSON string.
func (p KeyPair) MarshalJSON() ([]byte, error) { return json.Marshal(p.String()) }

// NewCA makes a self-signed CA with a fresh key.
func NewCA(opts CAOptions) (*CA, error) {
	clk := clock.Or(opts.Clock)
	if opts.CommonName == "" {
		opts.CommonName = "kubego-webhook-ca"
	}
	if opts.Validity <= 0 {
		opts.Validity = 365 * 24 * time.Hour
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("certs: CA key: %w", err)
	}
	serial, err := newSerial()
	if err != nil {
		return nil, err
	}
	now := clk.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: opts.CommonName},
		NotBefore:             now.Add(-5 * time.Minute),
		NotAfter:              now.Add(opts.Validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("certs: signing CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("certs: parsing CA: %w", err)
	}
	return &CA{Cert: cert, CertPEM: pemBlock("CERTIFICATE", der), key: key, clock: clk}, nil
}

// Issue makes a serving certificate (server authentication) signed by the
// CA, with a fresh key and a fresh random serial number.
func (ca *CA) Issue(opts ServingOptions) (KeyPair, error) {
	if len(opts.DNSNames) == 0 && len(opts.IPs) == 0 {
		return KeyPair{}, ErrNoNames
	}
	cn := ""
	if len(opts.DNSNames) > 0 {
		cn = opts.DNSNames[0]
	} else {
		cn = opts.IPs[0].String()
	}
	return ca.sign(&x509.Certificate{
		Subject:     pkix.Name{CommonName: cn},
		DNSNames:    append([]string(nil), opts.DNSNames...),
		IPAddresses: append([]net.IP(nil), opts.IPs...),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, opts.Validity)
}

func newSerial() (*big.Int, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("certs: serial number: %w", err)
	}
	return n.Add(n, big.NewInt(1)), nil
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
