package testenv

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/kubego/kubego/certs"
)

// pki is the key material of one control plane, written as PEM files in dir.
type pki struct {
	dir string

	caPEM        []byte
	adminCertPEM []byte
	adminKeyPEM  []byte

	caFile, servingCertFile, servingKeyFile string
	saPublicFile, saPrivateFile             string
}

func newPKI(dir string) (*pki, error) {
	p := &pki{dir: dir}
	ca, err := certs.NewCA(certs.CAOptions{CommonName: "kubego-testenv-ca", Validity: 10 * 365 * 24 * time.Hour})
	if err != nil {
		return nil, err
	}
	p.caPEM = ca.CertPEM
	serving, err := ca.Issue(certs.ServingOptions{
		DNSNames: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		IPs:      []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1"), net.ParseIP("10.0.0.1")},
		Validity: 365 * 24 * time.Hour,
	})
	if err != nil {
		return nil, err
	}
	admin, err := ca.IssueClient(certs.ClientOptions{CommonName: "kubego-admin", Organization: []string{"system:masters"}, Validity: 365 * 24 * time.Hour})
	if err != nil {
		return nil, err
	}
	p.adminCertPEM, p.adminKeyPEM = admin.CertPEM, admin.KeyPEM

	// The service-account signing key is a plain key pair, not a
	// certificate.
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	saPriv, err := x509.MarshalECPrivateKey(saKey)
	if err != nil {
		return nil, err
	}
	saPub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}

	files := []struct {
		field *string
		name  string
		data  []byte
	}{
		{&p.caFile, "ca.crt", p.caPEM},
		{&p.servingCertFile, "serving.crt", serving.CertPEM},
		{&p.servingKeyFile, "serving.key", serving.KeyPEM},
		{&p.saPublicFile, "sa.pub", pemBlock("PUBLIC KEY", saPub)},
		{&p.saPrivateFile, "sa.key", pemBlock("EC PRIVATE KEY", saPriv)},
	}
	for _, f := range files {
		*f.field = filepath.Join(dir, f.name)
		if err := os.WriteFile(*f.field, f.data, 0o600); err != nil {
			return nil, fmt.Errorf("testenv: writing %s: %w", f.name, err)
		}
	}
	return p, nil
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}
