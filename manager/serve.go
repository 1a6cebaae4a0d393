package manager

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// MetricsHandler serves the registry in the Prometheus exposition format.
func (m *Manager) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

// serve binds the metrics and health listeners and serves them until the
// returned function is called.
func (m *Manager) serve() (stop func(), err error) {
	type server struct {
		addr string
		mux  *http.ServeMux
		dst  *atomic.Value
		tls  *tls.Config
	}
	var servers []*server
	health := m.HealthHandler()
	if a := m.opts.MetricsAddr; a != "" {
		mux := http.NewServeMux()
		mux.Handle("/metrics", m.metricsSec.guard(m.MetricsHandler()))
		if m.opts.Pprof {
			mux.Handle("/debug/pprof/", m.metricsSec.guard(pprofHandler()))
		}
		if m.opts.HealthAddr == a {
			mux.Handle("/", health)
		}
		servers = append(servers, &server{a, mux, &m.metricsAddr, m.metricsSec.tlsConfig()})
	}
	if a := m.opts.HealthAddr; a != "" && a != m.opts.MetricsAddr {
		mux := http.NewServeMux()
		mux.Handle("/", health)
		servers = append(servers, &server{a, mux, &m.healthAddr, nil})
	}
	var running []*http.Server
	var wg sync.WaitGroup
	stop = func() {
		for _, s := range running {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = s.Shutdown(sctx)
			cancel()
		}
		wg.Wait()
	}
	for _, s := range servers {
		ln, err := net.Listen("tcp", s.addr)
		if err != nil {
			stop()
			return nil, fmt.Errorf("manager: listen on %s: %w", s.addr, err)
		}
		s.dst.Store(ln.Addr())
		if m.opts.HealthAddr == m.opts.MetricsAddr {
			m.healthAddr.Store(ln.Addr())
		}
		hs := &http.Server{Handler: s.mux, ReadHeaderTimeout: 10 * time.Second, TLSConfig: s.tls, ErrorLog: slog.NewLogLogger(m.log.Handler(), slog.LevelDebug)}
		running = append(running, hs)
		wg.Go(func() {
			serve := hs.Serve
			if hs.TLSConfig != nil {
				serve = func(ln net.Listener) error { return hs.ServeTLS(ln, "", "") }
			}
			if err := serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				m.log.Error("server failed", "addr", ln.Addr().String(), "err", err)
			}
		})
	}
	close(m.serving)
	return stop, nil
}
