package webhook

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/internal/httpserve"
	"github.com/kubego/kubego/internal/servingcert"
)

// Defaults of Options.
const (
	DefaultAddr            = ":9443"
	DefaultMaxBodyBytes    = 7 << 20
	DefaultRequestTimeout  = 30 * time.Second
	DefaultShutdownTimeout = 30 * time.Second
)

// Options configure a Server. The serving certificate comes from files
// (CertFile and KeyFile) or from GetCertificate: exactly one of the two is
// required. Every other zero value picks the documented default.
type Options struct {
	// Addr is the TCP address to listen on; empty means DefaultAddr.
	// Ignored when Listener is set.
	Addr string
	// Listener, when set, is served instead of listening on Addr (tests
	// pass one on 127.0.0.1:0). Start closes it.
	Listener net.Listener

	// CertFile and KeyFile are the PEM serving certificate (its chain may
	// follow) and private key. They are reloaded when they change: each
	// new connection gets the newest pair that loads.
	CertFile, KeyFile string
	// GetCertificate, when set instead of the files, gives the serving
	// certificate of each new connection (as tls.Config.GetCertificate
	// does; it is called with nil by ReadyCheck). A source that rotates
	// certificates in memory — webhookconfig.Certificates, which keeps its
	// CA in a Secret — plugs in here. The returned certificate's Leaf
	// should be set: ReadyCheck reads its expiry from it.
	GetCertificate func(*tls.ClientHelloInfo) (*tls.Certificate, error)

	// MaxBodyBytes bounds a request body; a larger one fails to read and
	// the handlers answer with an error. Zero means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// RequestTimeout bounds each request: reading it (headers and body)
	// and handling it; the handler's context ends then, and the admission
	// and conversion handlers answer with an error without waiting for it. Zero means DefaultRequestTimeout; it should
	// exceed the timeoutSeconds kube-apiserver is configured with, which
	// decides what a slow webhook means (its failurePolicy).
	RequestTimeout time.Duration
	// ShutdownTimeout bounds the graceful shutdown after Start's context
	// ends: requests in flight may finish until then. Zero means
	// DefaultShutdownTimeout.
	ShutdownTimeout time.Duration

	// TLSMinVersion is the lowest TLS version accepted; zero means TLS 1.2.
	TLSMinVersion uint16

	// DisableHTTP2 serves HTTP/1.1 only. HTTP/2 is on by default: it lets
	// kube-apiserver send concurrent reviews over one connection, and the
	// standard library's HTTP/2 server bounds the "rapid reset" attack
	// (CVE-2023-44487: a client that opens and cancels streams without
	// end) by running at most MaxConcurrentStreams handlers per
	// connection, queueing the streams beyond and closing a connection
	// whose queue grows too long. Set it where policy
	// asks for HTTP/1.1 only, or to serve as controller-runtime does by
	// default.
	DisableHTTP2 bool

	// Registerer, if set, receives the series of every handler, labelled
	// by the path it was registered at (webhook="/validate-widgets"):
	// controller_runtime_webhook_requests_total (by HTTP code),
	// controller_runtime_webhook_latency_seconds and
	// controller_runtime_webhook_requests_in_flight. A Manager's is
	// manager.Manager.Registry. Nil means no metrics.
	Registerer prometheus.Registerer
	// Logger receives serving failures and certificate reloads; nil sends
	// warnings and errors to slog.Default() (internal/defaultlog).
	Logger *slog.Logger
	// Clock is the time source of the readiness check; nil is the wall
	// clock.
	Clock clock.Clock
}

// Server is an HTTPS server for admission and conversion webhooks. Register
// handlers with Handle (before or after Start), then run it with Start,
// directly or as a manager.Runnable: it does not need leader election, so
// every replica serves.
//
// Every request gets: the body limited to Options.MaxBodyBytes, a context
// ending after Options.RequestTimeout, and a recovered panic turned into a
// 500 (the admission and conversion handlers recover first and answer with
// a review carrying the message). Its methods are safe for concurrent use.
type Server struct {
	opts  Options
	log   *slog.Logger
	clock clock.Clock
	mux   *http.ServeMux
	// getCert gives each connection its certificate: a file source's or
	// Options.GetCertificate.
	getCert func(*tls.ClientHelloInfo) (*tls.Certificate, error)
	metrics *metrics // nil: none

	mu      sync.Mutex
	started bool
	serving bool
	addr    net.Addr
	ready   chan struct{}
}

// New checks the options and, for certificate files, loads the pair once,
// so a missing or invalid pair is reported here rather than at the first
// handshake. A GetCertificate source is not called here: it may provision
// its first certificate after the server was made.
func New(opts Options) (*Server, error) {
	files := opts.CertFile != "" || opts.KeyFile != ""
	switch {
	case files && opts.GetCertificate != nil:
		return nil, fmt.Errorf("%w: set CertFile and KeyFile or GetCertificate, not both", ErrInvalidOptions)
	case !files && opts.GetCertificate == nil:
		return nil, fmt.Errorf("%w: CertFile and KeyFile, or GetCertificate, are required", ErrInvalidOptions)
	case files && (opts.CertFile == "" || opts.KeyFile == ""):
		return nil, fmt.Errorf("%w: CertFile and KeyFile go together", ErrInvalidOptions)
	}
	if opts.MaxBodyBytes < 0 || opts.RequestTimeout < 0 || opts.ShutdownTimeout < 0 {
		return nil, fmt.Errorf("%w: negative MaxBodyBytes, RequestTimeout or ShutdownTimeout", ErrInvalidOptions)
	}
	if opts.Addr == "" {
		opts.Addr = DefaultAddr
	}
	if opts.MaxBodyBytes == 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	if opts.ShutdownTimeout == 0 {
		opts.ShutdownTimeout = DefaultShutdownTimeout
	}
	if opts.TLSMinVersion == 0 {
		opts.TLSMinVersion = tls.VersionTLS12
	}
	log := defaultlog.Or(opts.Logger)
	getCert := opts.GetCertificate
	if files {
		cs, err := servingcert.New("webhook", opts.CertFile, opts.KeyFile, log)
		if err != nil {
			return nil, err
		}
		getCert = cs.GetCertificate
	}
	var m *metrics
	if opts.Registerer != nil {
		var err error
		if m, err = newMetrics(opts.Registerer); err != nil {
			return nil, err
		}
	}
	return &Server{opts: opts, log: log, clock: clock.Or(opts.Clock), mux: http.NewServeMux(), getCert: getCert, metrics: m, ready: make(chan struct{})}, nil
}

// Handle registers h for the path pattern (http.ServeMux syntax, for
// example "/validate-widgets"). It panics, as http.ServeMux does, on a
// pattern registered twice: that is a programming error.
func (s *Server) Handle(pattern string, h http.Handler) {
	s.mux.Handle(pattern, s.metrics.instrument(pattern, h))
}

// NeedLeaderElection reports false: every replica serves webhooks.
func (s *Server) NeedLeaderElection() bool { return false }

// Start listens and serves HTTPS until ctx ends, then shuts down
// gracefully (Options.ShutdownTimeout) and returns nil. A failure to listen
// or serve is returned at once.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return ErrAlreadyStarted
	}
	s.started = true
	s.mu.Unlock()

	ln := s.opts.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", s.opts.Addr); err != nil {
			return fmt.Errorf("webhook: listen: %w", err)
		}
	}
	s.mu.Lock()
	s.serving, s.addr = true, ln.Addr()
	close(s.ready)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.serving = false
		s.mu.Unlock()
	}()
	s.log.Info("webhook: serving", "addr", ln.Addr().String())
	err := httpserve.Serve(ctx, httpserve.Options{
		Listener:     ln,
		Handler:      s.wrap(s.mux),
		TLS:          &tls.Config{MinVersion: s.opts.TLSMinVersion, GetCertificate: s.getCert},
		DisableHTTP2: s.opts.DisableHTTP2,
		// Bounds reading a request, so a body trickling in is cut off too.
		// Its expiry also cancels the request's context, so it is a little
		// longer than RequestTimeout, whose cause the handlers then see.
		ReadTimeout:     s.opts.RequestTimeout + time.Second,
		ShutdownTimeout: s.opts.ShutdownTimeout,
		Logger:          s.log,
	})
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	return nil
}

// Serving returns a channel closed once Start listens; Addr is valid then.
func (s *Server) Serving() <-chan struct{} { return s.ready }

// Addr is the address the server listens on, nil before Start listens.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// ReadyCheck reports whether the server listens and has a valid,
// unexpired serving certificate. Its signature is that of manager.Check:
//
//	mgr.AddReadyzCheck("webhook", srv.ReadyCheck)
func (s *Server) ReadyCheck(*http.Request) error {
	s.mu.Lock()
	serving := s.serving
	s.mu.Unlock()
	if !serving {
		return ErrNotServing
	}
	c, err := s.getCert(nil)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNoCertificate, err)
	}
	if c == nil || c.Leaf == nil {
		return ErrNoCertificate
	}
	if now := s.clock.Now(); now.After(c.Leaf.NotAfter) {
		return fmt.Errorf("%w: serving certificate expired at %s", ErrCertificateExpired, c.Leaf.NotAfter)
	}
	return nil
}

// wrap applies the per-request rules: body limit, timeout, panic recovery.
func (s *Server) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeoutCause(r.Context(), s.opts.RequestTimeout, ErrRequestTimeout)
		defer cancel()
		r = r.WithContext(ctx)
		r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("webhook: handler panicked", "path", r.URL.Path, "panic", v)
				http.Error(w, fmt.Sprintf("webhook handler panicked: %v", v), http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}
