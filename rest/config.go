package rest

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubego/kubego/clock"
)

// Config says how to reach and authenticate to one kube-apiserver. The zero
// value is not usable: Host must be set. A Config is plain data; building a
// Client from it (NewClient) validates it and returns a typed *ConfigError for
// anything wrong. Config values may be copied; the copy shares func and
// interface fields with the original.
//
// Secrets (BearerToken, Password, TLS.KeyData) never appear in String,
// GoString, errors or logs.
//
// Credentials: set at most one of BearerToken, BearerTokenFile,
// Username/Password and Auth (Validate refuses more with a *ConfigError
// wrapping ErrConflictingAuth). A client certificate (TLS) may accompany
// any of them.
type Config struct {
	// Host is the server URL, "https://host:port". A host without a scheme is
	// taken as https. A path in Host is a prefix put before every request path
	// (for servers behind a proxy).
	Host string

	// TLS holds the transport security settings.
	TLS TLSConfig

	// BearerToken is sent as "Authorization: Bearer <token>".
	BearerToken string
	// BearerTokenFile names a file holding the bearer token, such as a
	// projected service-account token that kubelet rotates. NewClient reads
	// it (a missing, empty or malformed file is a *ConfigError); requests
	// re-read it once the token is TokenFileMaxAge old, and at once after a
	// 401 (the request is then retried once with a changed token). A failed
	// re-read keeps the previous token and logs a warning.
	BearerTokenFile string
	// Username and Password are sent as HTTP basic auth.
	Username string
	Password string

	// Auth, when set, authenticates every request: it wraps the transport,
	// after TLS and before WrapTransport. It is for credentials that are not
	// one of the above: exec credential plugins (package auth), or a
	// TokenSource of the caller's through BearerAuth.
	Auth Authenticator

	// AllowInsecureAuth permits sending a bearer token or basic-auth
	// credentials over plain http. Off by default: such a Config is refused.
	AllowInsecureAuth bool

	// Impersonate sets the Impersonate-* headers on every request.
	Impersonate Impersonation

	// UserAgent is sent with every request. Empty means DefaultUserAgent():
	// "<program>/<version> (<os>/<arch>) kubego/<version>".
	UserAgent string

	// Timeout bounds each request that is not a watch or stream, from start to
	// the end of the body. Zero means no timeout beyond the request's context
	// (ResponseHeaderTimeout still bounds the wait for an answer,
	// ResponseBodyProgressTimeout a stalled body, and MaxResponseBytes its
	// size).
	Timeout time.Duration

	// ContentType chooses the wire format. The zero value (ContentTypeAuto)
	// uses protobuf for built-in kinds that support it and JSON otherwise.
	ContentType ContentType

	// RateLimiter, when set, is waited on before every request (a
	// TokenBucket, for one). Nil (the default) means no client-side
	// throttling: servers use priority and fairness and answer 429 with
	// Retry-After, which the client honours.
	RateLimiter RateLimiter

	// MaxRetries bounds how often a request that is safe to repeat is retried
	// after a 429 or a 5xx with Retry-After. Zero means the default (10); a
	// negative value disables retries.
	MaxRetries int

	// Proxy chooses an HTTP proxy for each request. Nil means ProxyURL,
	// or http.ProxyFromEnvironment when that is nil too. A func cannot be
	// compared, so a Config with Proxy gets a transport (and connection
	// pool) of its own; use ProxyURL for a fixed proxy.
	Proxy func(*http.Request) (*url.URL, error)
	// ProxyURL is one proxy for every request (scheme http, https or
	// socks5), as a kubeconfig's proxy-url. Clients with equal settings and
	// an equal ProxyURL share one connection pool. It is an error together
	// with Proxy.
	ProxyURL *url.URL

	// WrapTransport, when set, wraps the finished transport chain: it is
	// applied last, outermost, after authentication, impersonation and the
	// user agent. It therefore sees every attempt of every request (retries
	// included) before credentials are added, so an instrumenting or logging
	// wrapper never sees a secret. It must not modify the request it is given
	// (clone it first).
	WrapTransport func(http.RoundTripper) http.RoundTripper

	// WarningHandler receives the Warning headers of responses. Nil means:
	// log each distinct message once through Logger at warn level.
	WarningHandler WarningHandler

	// Logger receives the client's logs. Nil means warnings and errors go to
	// slog.Default() (looked up when each is logged) and nothing else is
	// logged.
	Logger *slog.Logger

	// DisableHTTP2 forces HTTP/1.1. HTTP/2 is the default and is needed for
	// connection health pings.
	DisableHTTP2 bool

	// DisableCompression stops asking the server for gzip-compressed
	// responses (kubeconfig: disable-compression). Compression saves
	// bandwidth on a real network — kube-apiserver also compresses the
	// stream of a streaming initial list — but costs CPU on both sides,
	// which dominates on loopback or a fast local network.
	DisableCompression bool

	// HealthPingInterval is how long an HTTP/2 connection may be idle before
	// the client sends a ping; PingTimeout is how long it waits for the
	// answer before closing the connection. Zero means 30s and 15s, so a dead
	// connection under a watch is noticed within about a minute.
	HealthPingInterval time.Duration
	PingTimeout        time.Duration

	// Scheme is the type registry used for content negotiation, decoding and
	// parameter encoding. Nil means the meta/v1 types, with the built-in
	// kinds of k8s.io/api known by their Go types (Client.KindsOf) instead
	// of registered, so that a program links only the groups it uses;
	// scheme.Default() registers every built-in kind. A group/version is
	// sent in protobuf (under ContentTypeAuto) when it is registered here
	// and its types implement protobuf marshalling, or, with a nil Scheme,
	// when the request is Typed with a built-in Go type.
	Scheme *runtime.Scheme

	// Limits bound what a server (a hostile one, or a proxy gone wrong) can
	// take of the client's memory and time; each zero field is its
	// default.
	Limits Limits

	// Clock tells the time (token file age) and times the waits between
	// retries. Nil means the wall clock.
	Clock clock.Clock
}

// TLSConfig holds the TLS settings of a Config. File fields are read when the
// Client is built; data fields win over file fields.
type TLSConfig struct {
	// Insecure skips verification of the server certificate. It is an error
	// together with a CA.
	Insecure bool
	// ServerName overrides the name checked against the server certificate
	// (and sent as SNI).
	ServerName string

	CAFile   string
	CAData   []byte
	CertFile string
	CertData []byte
	KeyFile  string
	KeyData  []byte

	// ClientCertificates, when set, supplies the client certificate at
	// each handshake (rotating files: auth.CertFiles; exec plugins:
	// auth.Exec). It wins over the Cert/Key fields. Configs holding the
	// same source (the same pointer) share one connection pool; a source
	// whose type cannot be compared, such as a ClientCertificateFunc, gets
	// a pool of its own.
	ClientCertificates ClientCertificateSource
}

// ClientCertificateSource supplies a client certificate at each TLS
// handshake. It must be safe for concurrent use.
type ClientCertificateSource interface {
	GetClientCertificate(*tls.CertificateRequestInfo) (*tls.Certificate, error)
}

// ClientCertificateFunc adapts a function to a ClientCertificateSource.
type ClientCertificateFunc func(*tls.CertificateRequestInfo) (*tls.Certificate, error)

// GetClientCertificate calls f.
func (f ClientCertificateFunc) GetClientCertificate(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
	return f(cri)
}

// Impersonation is the identity a request acts as. The zero value
// impersonates no one.
type Impersonation struct {
	UserName string
	UID      string
	Groups   []string
	Extra    map[string][]string
}

// Authenticator adds credentials to requests. Implementations are in package
// auth; they must be safe for concurrent use and must never log secrets.
type Authenticator interface {
	// WrapTransport returns a RoundTripper that authenticates each request
	// before handing it to rt. It must not modify the caller's request.
	WrapTransport(rt http.RoundTripper) http.RoundTripper
}

// RateLimiter throttles requests on the client side.
type RateLimiter interface {
	// Wait blocks until a request may be sent or ctx ends, returning
	// ctx.Err() in the latter case.
	Wait(ctx context.Context) error
}

// WarningHandler is told about each Warning header (RFC 7234 code 299) on a
// response. It must be safe for concurrent use.
type WarningHandler interface {
	HandleWarning(code int, agent, text string)
}

// ContentType selects the wire format a Client uses.
type ContentType int

const (
	// ContentTypeAuto uses protobuf for built-in kinds that support it and
	// JSON for everything else (custom resources, unstructured, errors).
	ContentTypeAuto ContentType = iota
	// ContentTypeJSON always uses JSON.
	ContentTypeJSON
	// ContentTypeProtobuf prefers protobuf, falling back to JSON for types
	// that cannot be encoded in it.
	ContentTypeProtobuf
)
