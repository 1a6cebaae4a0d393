package manager

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/kubego/kubego/authfilter"
	"github.com/kubego/kubego/certs"
	"github.com/kubego/kubego/internal/servingcert"
)

// SecureMetrics makes the metrics server (Options.MetricsAddr) serve HTTPS
// and admit only callers the API server authenticates (TokenReview) and
// authorizes (SubjectAccessReview for the request's verb and path, as a
// non-resource request), the way metrics are protected in real clusters.
// Grant a scraper
//
//	rules:
//	- nonResourceURLs: ["/metrics"]
//	  verbs: ["get"]
//
// and the Manager's own identity create on tokenreviews and
// subjectaccessreviews (the built-in ClusterRole system:auth-delegator).
// Without a bearer token a caller gets 401; without the permission 403.
// When HealthAddr equals MetricsAddr, /healthz and /readyz are served on
// the same HTTPS server without the check: probes carry no token.
type SecureMetrics struct {
	// CertFile and KeyFile are the PEM serving certificate and key,
	// reloaded when they change (each new connection gets the newest pair
	// that loads). Both empty means a self-signed certificate for the host
	// name, localhost and the loopback addresses, made by New and kept in
	// memory: scrapers then skip verification, as Prometheus usually does
	// for pod targets.
	CertFile, KeyFile string
	// Auth configures the check. A nil Client means the Manager's client,
	// a nil Logger the Manager's.
	Auth authfilter.Options
	// TLSMinVersion is the lowest TLS version accepted; zero means TLS 1.2.
	TLSMinVersion uint16
	// DisableHTTP2 serves the metrics over HTTP/1.1 only. HTTP/2 is on by
	// default, as for the webhook server (see webhook.Options.DisableHTTP2:
	// the standard library's server bounds the "rapid reset" attack);
	// scrapers need nothing more than HTTP/1.1.
	DisableHTTP2 bool
}

// metricsSecurity is what setupSecureMetrics prepares for serve.
type metricsSecurity struct {
	tls    *tls.Config
	filter *authfilter.Filter
}

// guard wraps h in the check, or returns it as it is without SecureMetrics.
func (s *metricsSecurity) guard(h http.Handler) http.Handler {
	if s == nil || s.filter == nil {
		return h
	}
	return s.filter.Wrap(h)
}

func (s *metricsSecurity) tlsConfig() *tls.Config {
	if s == nil {
		return nil
	}
	return s.tls
}

// setupSecureMetrics checks Options.SecureMetrics and Options.Pprof and
// prepares the TLS configuration and the filter.
func (m *Manager) setupSecureMetrics() error {
	sm := m.opts.SecureMetrics
	if sm == nil {
		if m.opts.Pprof && m.opts.MetricsAddr != "" && !loopback(m.opts.MetricsAddr) {
			return invalid("Pprof on %q needs SecureMetrics: without it anyone who reaches the address could profile the process (a loopback address is allowed)", m.opts.MetricsAddr)
		}
		return nil
	}
	if (sm.CertFile == "") != (sm.KeyFile == "") {
		return invalid("SecureMetrics needs both CertFile and KeyFile, or neither")
	}
	cfg := &tls.Config{MinVersion: sm.TLSMinVersion}
	if sm.DisableHTTP2 {
		cfg.NextProtos = []string{"http/1.1"}
	}
	if cfg.MinVersion == 0 {
		cfg.MinVersion = tls.VersionTLS12
	}
	if sm.CertFile != "" {
		src, err := servingcert.New("manager", sm.CertFile, sm.KeyFile, m.log)
		if err != nil {
			return err
		}
		cfg.GetCertificate = src.GetCertificate
		m.readyz.add("metrics-certificate", func(*http.Request) error { return src.Check(time.Now()) })
	} else {
		pair, err := selfSigned()
		if err != nil {
			return fmt.Errorf("manager: self-signed metrics certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	ao := sm.Auth
	if ao.Client == nil {
		ao.Client = m.client
	}
	if ao.Logger == nil {
		ao.Logger = m.log
	}
	f, err := authfilter.New(ao)
	if err != nil {
		return err
	}
	m.metricsSec = &metricsSecurity{tls: cfg, filter: f}
	return nil
}

// selfSignedValidity outlasts any process: a self-signed certificate is
// never verified, but some clients still refuse an expired one.
const selfSignedValidity = 10 * 365 * 24 * time.Hour

// selfSigned makes a serving certificate for this host.
func selfSigned() (tls.Certificate, error) {
	ca, err := certs.NewCA(certs.CAOptions{CommonName: "kubego-manager-metrics", Validity: selfSignedValidity})
	if err != nil {
		return tls.Certificate{}, err
	}
	names := []string{"localhost"}
	if h, err := os.Hostname(); err == nil && h != "" {
		names = append(names, h)
	}
	pair, err := ca.Issue(certs.ServingOptions{DNSNames: names, IPs: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, Validity: selfSignedValidity})
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(pair.CertPEM, pair.KeyPEM)
}

// loopback reports whether a listen address binds only a loopback
// interface.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
