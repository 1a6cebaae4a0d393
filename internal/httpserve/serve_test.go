package httpserve

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/kubego/kubego/certs"
)

func TestServe(t *testing.T) {
	ca, err := certs.NewCA(certs.CAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := ca.Issue(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(pair.CertPEM, pair.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		tls       bool
		noHTTP2   bool
		wantProto string
	}{
		{"plain HTTP is HTTP/1.1", false, false, "HTTP/1.1"},
		{"TLS negotiates HTTP/2", true, false, "HTTP/2.0"},
		{"TLS without HTTP/2 is HTTP/1.1", true, true, "HTTP/1.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{Listener: ln, DisableHTTP2: tc.noHTTP2, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.WriteString(w, r.Proto)
			})}
			client := &http.Client{Timeout: time.Minute}
			scheme := "http"
			if tc.tls {
				opts.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
				roots := ca.Cert
				pool := newPool(roots)
				client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
				scheme = "https"
			}
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- Serve(ctx, opts) }()
			resp, err := client.Get(scheme + "://" + ln.Addr().String() + "/")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != tc.wantProto {
				t.Errorf("served %s, want %s", body, tc.wantProto)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("Serve = %v after its context ended, want nil", err)
			}
		})
	}
}

func TestServeRefusesMissingParts(t *testing.T) {
	if err := Serve(t.Context(), Options{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Serve = %v, want ErrInvalid", err)
	}
}

func newPool(c *x509.Certificate) *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(c)
	return p
}
