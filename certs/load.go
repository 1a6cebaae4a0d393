package certs

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"github.com/kubego/kubego/clock"
)

// ErrInvalidCA is wrapped by the error of LoadCA for material that is not
// a usable CA: PEM that does not parse, a certificate that is not a CA or
// has expired, or a key that does not match it.
var ErrInvalidCA = errors.New("certs: not a usable CA")

// Pair returns the CA's certificate and private key, PEM, so that the CA
// can be kept (in a kubernetes.io/tls Secret, say) and made again with
// LoadCA: replicas of one program that load one CA issue certificates the
// same caBundle trusts.
func (ca *CA) Pair() (KeyPair, error) {
	der, err := x509.MarshalPKCS8PrivateKey(ca.key)
	if err != nil {
		return KeyPair{}, fmt.Errorf("certs: encoding the CA key: %w", err)
	}
	return KeyPair{CertPEM: append([]byte(nil), ca.CertPEM...), KeyPEM: pemBlock("PRIVATE KEY", der)}, nil
}

// LoadCA makes a CA from a certificate and its private key in PEM (PKCS #8,
// or SEC 1 "EC PRIVATE KEY"), as Pair returns them. opts.Clock dates what
// the CA issues and checks the CA's own validity; the other fields of
// opts are not used. It returns an error wrapping ErrInvalidCA for
// material that does not parse, a certificate without the CA basic
// constraint, one outside its validity, or a key that does not match the
// certificate.
func LoadCA(pair KeyPair, opts CAOptions) (*CA, error) {
	clk := clock.Or(opts.Clock)
	block, _ := pem.Decode(pair.CertPEM)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, fmt.Errorf("%w: no PEM certificate", ErrInvalidCA)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidCA, err)
	}
	if !cert.IsCA || !cert.BasicConstraintsValid {
		return nil, fmt.Errorf("%w: the certificate %q is not a CA", ErrInvalidCA, cert.Subject.CommonName)
	}
	if now := clk.Now(); now.Before(cert.NotBefore) || now.After(cert.NotAfter) {
		return nil, fmt.Errorf("%w: the certificate %q is valid from %s to %s", ErrInvalidCA, cert.Subject.CommonName, cert.NotBefore.Format(time.RFC3339), cert.NotAfter.Format(time.RFC3339))
	}
	key, err := parseKey(pair.KeyPEM)
	if err != nil {
		return nil, err
	}
	pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(cert.PublicKey) {
		return nil, fmt.Errorf("%w: the key does not match the certificate %q", ErrInvalidCA, cert.Subject.CommonName)
	}
	return &CA{Cert: cert, CertPEM: pemBlock("CERTIFICATE", block.Bytes), key: key, clock: clk}, nil
}

// parseKey reads a PEM private key that can sign.
func parseKey(keyPEM []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(keyPEM)
	if block == nil {
		return nil, fmt.Errorf("%w: no PEM key", ErrInvalidCA)
	}
	var key any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("%w: unknown key type %q", ErrInvalidCA, block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidCA, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%w: the key cannot sign", ErrInvalidCA)
	}
	return signer, nil
}
