package rest

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"net"
	"net/http"
	"os"
	"reflect"
	"time"

	"github.com/kubego/kubego/internal/weakcache"
)

const (
	defaultHealthPingInterval = 30 * time.Second
	defaultPingTimeout        = 15 * time.Second
)

// transportKey identifies the settings that make two transports
// interchangeable. Key material enters only as a hash; a client certificate
// source by its identity (a pointer, in practice).
type transportKey struct {
	insecure     bool
	serverName   string
	material     [sha256.Size]byte
	certSource   ClientCertificateSource
	proxyURL     string
	disableHTTP2 bool
	noGzip       bool
	pingInterval time.Duration
	pingTimeout  time.Duration
}

// transports shares one *http.Transport (and so one connection pool)
// among all clients built from Configs with equal transport settings.
// Entries are weak: a transport no client uses any more is collected and its
// entry removed. This is the package's only process-wide state; it holds no
// secret in readable form and is safe for concurrent use.
var transports = weakcache.New[transportKey, http.Transport]()

// tlsMaterial is the TLS data of a Config with files read.
type tlsMaterial struct {
	ca, cert, key []byte
}

func readTLSMaterial(t *TLSConfig) (tlsMaterial, error) {
	var m tlsMaterial
	read := func(data []byte, file, field string) ([]byte, error) {
		if len(data) > 0 || file == "" {
			return data, nil
		}
		b, err := os.ReadFile(file)
		if err != nil {
			// os errors carry the path, never the content.
			return nil, &ConfigError{Field: field, Reason: "cannot read file", Err: err}
		}
		return b, nil
	}
	var err error
	if m.ca, err = read(t.CAData, t.CAFile, "TLS.CAFile"); err != nil {
		return m, err
	}
	if m.cert, err = read(t.CertData, t.CertFile, "TLS.CertFile"); err != nil {
		return m, err
	}
	if m.key, err = read(t.KeyData, t.KeyFile, "TLS.KeyFile"); err != nil {
		return m, err
	}
	return m, nil
}

func (m tlsMaterial) hash() [sha256.Size]byte {
	h := sha256.New()
	for _, b := range [][]byte{m.ca, m.cert, m.key} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	var out [sha256.Size]byte
	copy(out[:], h.Sum(nil))
	return out
}

// buildTLSConfig turns the Config's TLS settings into a *tls.Config. Errors
// are *ConfigError and never quote key material.
func buildTLSConfig(t *TLSConfig, m tlsMaterial) (*tls.Config, error) {
	tc := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         t.ServerName,
		InsecureSkipVerify: t.Insecure, //nolint:gosec // explicit opt-in, refused together with a CA
	}
	if len(m.ca) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(m.ca) {
			return nil, configErr("TLS.CAData", "contains no PEM certificate")
		}
		tc.RootCAs = pool
	}
	switch {
	case t.ClientCertificates != nil:
		tc.GetClientCertificate = t.ClientCertificates.GetClientCertificate
	case len(m.cert) > 0 || len(m.key) > 0:
		cert, err := tls.X509KeyPair(m.cert, m.key)
		if err != nil {
			// The tls error text is about PEM structure, but keep a fixed
			// reason so no future error text can echo key bytes.
			return nil, configErr("TLS.CertData", "client certificate and key are not a valid matching PEM pair")
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// transportFor returns the shared transport for c's settings, or a private
// one when c has settings that cannot be compared: a Proxy func, or a
// TLS.ClientCertificates source of a type that is not comparable (a
// ClientCertificateFunc).
func transportFor(c *Config) (*http.Transport, error) {
	m, err := readTLSMaterial(&c.TLS)
	if err != nil {
		return nil, err
	}
	tlsConf, err := buildTLSConfig(&c.TLS, m)
	if err != nil {
		return nil, err
	}
	build := func() (*http.Transport, error) { return newTransport(c, tlsConf), nil }
	src := c.TLS.ClientCertificates
	if c.Proxy != nil || (src != nil && !reflect.TypeOf(src).Comparable()) {
		return build()
	}
	k := transportKey{
		insecure:     c.TLS.Insecure,
		serverName:   c.TLS.ServerName,
		material:     m.hash(),
		certSource:   src,
		disableHTTP2: c.DisableHTTP2,
		noGzip:       c.DisableCompression,
		pingInterval: orDefault(c.HealthPingInterval, defaultHealthPingInterval),
		pingTimeout:  orDefault(c.PingTimeout, defaultPingTimeout),
	}
	if c.ProxyURL != nil {
		k.proxyURL = c.ProxyURL.String()
	}
	return transports.Get(k, build)
}

func newTransport(c *Config, tlsConf *tls.Config) *http.Transport {
	proxy := c.Proxy
	switch {
	case proxy != nil:
	case c.ProxyURL != nil:
		proxy = http.ProxyURL(c.ProxyURL)
	default:
		proxy = http.ProxyFromEnvironment
	}
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	t := &http.Transport{
		Proxy:                 proxy,
		DialContext:           d.DialContext,
		TLSClientConfig:       tlsConf,
		TLSHandshakeTimeout:   10 * time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   25,
		ExpectContinueTimeout: time.Second,
		ForceAttemptHTTP2:     !c.DisableHTTP2,
		DisableCompression:    c.DisableCompression,
	}
	p := new(http.Protocols)
	p.SetHTTP1(true)
	if !c.DisableHTTP2 {
		p.SetHTTP2(true)
		// Health pings: when an HTTP/2 connection has been silent for
		// the interval, a PING is sent; no answer within the timeout
		// closes the connection, failing every stream on it (a watch on
		// a dead TCP connection ends instead of hanging).
		t.HTTP2 = &http.HTTP2Config{
			SendPingTimeout: orDefault(c.HealthPingInterval, defaultHealthPingInterval),
			PingTimeout:     orDefault(c.PingTimeout, defaultPingTimeout),
		}
	}
	t.Protocols = p
	return t
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
