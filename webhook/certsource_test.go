package webhook

import (
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/kubego/kubego/webhook/certs"
)

// BenchmarkCertificateAtHandshake is the cost the reloading adds to each
// TLS handshake when nothing changed: reading both files and comparing.
func BenchmarkCertificateAtHandshake(b *testing.B) {
	ca, err := certs.NewCA(certs.CAOptions{})
	if err != nil {
		b.Fatal(err)
	}
	pair, err := ca.Issue(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		b.Fatal(err)
	}
	files, err := certs.Write(b.TempDir(), pair)
	if err != nil {
		b.Fatal(err)
	}
	s, err := newCertSource(files.CertFile, files.KeyFile, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.getCertificate(nil); err != nil {
			b.Fatal(err)
		}
	}
}
