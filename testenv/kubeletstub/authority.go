package kubeletstub

import (
	"bytes"
	"fmt"
	"net"

	"github.com/kubego/kubego/certs"
)

// Authority is the CA that signs the stand-in's serving certificate. Make
// it before the control plane starts and pass CertPEM as
// testenv.Options.KubeletCA, so that kube-apiserver trusts the stand-in.
type Authority struct {
	ca *certs.CA
}

// NewAuthority makes a CA with a fresh key.
func NewAuthority() (*Authority, error) {
	ca, err := certs.NewCA(certs.CAOptions{CommonName: "kubego-kubeletstub-ca"})
	if err != nil {
		return nil, fmt.Errorf("kubeletstub: %w", err)
	}
	return &Authority{ca: ca}, nil
}

// CertPEM returns the CA certificate, PEM: testenv.Options.KubeletCA.
func (a *Authority) CertPEM() []byte { return bytes.Clone(a.ca.CertPEM) }

// serving issues the stand-in's certificate for 127.0.0.1.
func (a *Authority) serving() (certs.KeyPair, error) {
	return a.ca.Issue(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"}})
}
