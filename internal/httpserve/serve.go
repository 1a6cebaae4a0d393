// Package httpserve is the one lifecycle of the module's HTTP servers (the
// webhook server, the manager's metrics and health endpoints): serve a
// listener until a context ends, then shut down gracefully within a bound
// and close what is left.
package httpserve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/kubego/kubego/internal/defaultlog"
)

// Defaults of Options.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = 90 * time.Second
	DefaultShutdownTimeout   = 5 * time.Second
)

// Options configure one Serve. Listener and Handler are required.
type Options struct {
	// Listener is served; Serve closes it.
	Listener net.Listener
	// Handler answers the requests.
	Handler http.Handler
	// TLS, when set, serves HTTPS with it (its certificates come from
	// Certificates or GetCertificate); nil serves plain HTTP.
	TLS *tls.Config
	// DisableHTTP2 serves HTTP/1.1 only (over TLS; plain HTTP is HTTP/1.1
	// anyway).
	DisableHTTP2 bool
	// ReadHeaderTimeout bounds reading a request's headers; zero means
	// DefaultReadHeaderTimeout.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request; zero means none.
	ReadTimeout time.Duration
	// IdleTimeout closes idle keep-alive connections; zero means
	// DefaultIdleTimeout.
	IdleTimeout time.Duration
	// ShutdownTimeout bounds the graceful shutdown once the context ends:
	// requests in flight may finish until then, after which the remaining
	// connections are closed. Zero means DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// Logger receives the server's own errors (at debug level: they are
	// about clients, such as TLS handshakes that fail) and a warning when a
	// shutdown is cut short. Nil follows the module's no-logger rule.
	Logger *slog.Logger
}

// ErrInvalid is returned by Serve without a Listener or Handler.
var ErrInvalid = errors.New("httpserve: Listener and Handler are required")

// Serve serves opts.Listener until ctx ends, then shuts down gracefully
// and returns nil; a failure to serve is returned at once. Handlers get a
// context that ctx's end does not cancel (the shutdown lets them finish).
func Serve(ctx context.Context, opts Options) error {
	if opts.Listener == nil || opts.Handler == nil {
		return ErrInvalid
	}
	if opts.ReadHeaderTimeout <= 0 {
		opts.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = DefaultShutdownTimeout
	}
	log := defaultlog.Or(opts.Logger)
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(opts.TLS != nil && !opts.DisableHTTP2)
	srv := &http.Server{
		Handler:           opts.Handler,
		ReadHeaderTimeout: opts.ReadHeaderTimeout,
		ReadTimeout:       opts.ReadTimeout,
		IdleTimeout:       opts.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		Protocols:         protocols,
	}
	ln := opts.Listener
	if opts.TLS != nil {
		cfg := opts.TLS.Clone()
		cfg.NextProtos = []string{"h2", "http/1.1"}
		if opts.DisableHTTP2 {
			cfg.NextProtos = []string{"http/1.1"}
		}
		ln = tls.NewListener(ln, cfg)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", opts.Listener.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), opts.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("graceful shutdown cut short; closing connections", "addr", opts.Listener.Addr().String(), "err", err)
		srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", opts.Listener.Addr(), err)
	}
	return nil
}
