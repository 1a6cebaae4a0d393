package certs_test

import (
	"fmt"
	"net"
	"os"

	"github.com/kubego/kubego/certs"
)

// A CA and a serving certificate for a webhook on loopback, written where
// a webhook.Server reads them; the CA's PEM is the caBundle to register.
func Example() {
	dir, err := os.MkdirTemp("", "webhook-certs")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	ca, err := certs.NewCA(certs.CAOptions{})
	if err != nil {
		panic(err)
	}
	pair, err := ca.Issue(certs.ServingOptions{DNSNames: []string{"localhost"}, IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		panic(err)
	}
	files, err := certs.Write(dir, pair)
	if err != nil {
		panic(err)
	}
	fmt.Println(files.CertFile == dir+"/tls.crt", files.KeyFile == dir+"/tls.key", len(ca.CertPEM) > 0)
	// Output: true true true
}
