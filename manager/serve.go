package manager

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kubego/kubego/internal/httpserve"
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
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	stop = func() {
		cancel()
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
		opts := httpserve.Options{Listener: ln, Handler: s.mux, TLS: s.tls, Logger: m.log}
		if sm := m.opts.SecureMetrics; s.tls != nil && sm != nil {
			opts.DisableHTTP2 = sm.DisableHTTP2
		}
		wg.Go(func() {
			if err := httpserve.Serve(ctx, opts); err != nil {
				m.log.Error("server failed", "addr", ln.Addr().String(), "err", err)
			}
		})
	}
	close(m.serving)
	return stop, nil
}
