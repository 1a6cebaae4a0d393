package controller

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/trace"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/leaderelection/promleader"
	"github.com/kubego/kubego/rest"
)

// DefaultGracefulShutdownTimeout bounds how long Manager.Start waits for
// its runnables to return once it stops.
const DefaultGracefulShutdownTimeout = 45 * time.Second

// Runnable is anything a Manager runs: controllers, servers, periodic
// jobs. Start runs until ctx is done and then returns nil; an error before
// that stops the whole Manager, and Start of the Manager returns it.
type Runnable interface {
	Start(ctx context.Context) error
}

// RunnableFunc adapts a function to Runnable.
type RunnableFunc func(ctx context.Context) error

// Start calls f(ctx).
func (f RunnableFunc) Start(ctx context.Context) error { return f(ctx) }

// LeaderElectionRunnable is implemented by Runnables that tell whether
// they need leadership. A Runnable that does not implement it needs it.
// Without leader election in the Manager, everything runs at once.
type LeaderElectionRunnable interface {
	NeedLeaderElection() bool
}

// ManagerOptions configure a Manager. Config is required; every other field
// has a useful zero value.
type ManagerOptions struct {
	// Config is how to reach the API server. The Manager builds its one
	// shared client from a copy of it, adding its metrics round-tripper
	// to WrapTransport (after any wrapper already set).
	Config *rest.Config
	// Client configures the shared client (custom resource registry, field
	// manager).
	Client client.Options
	// Informers configure the shared informer factory. A nil Logger is
	// replaced by the Manager's.
	Informers informer.FactoryOptions
	// Registry receives every metric of the Manager and is served on
	// /metrics. Nil means a new registry per Manager, holding also the Go
	// runtime and process collectors. The global default registry is never
	// used.
	Registry *prometheus.Registry
	// MetricsAddr is the address of the /metrics server ("127.0.0.1:0"
	// picks a free port). Empty means no metrics server (the registry and
	// MetricsHandler still work).
	MetricsAddr string
	// HealthAddr is the address of the /healthz and /readyz server. Empty
	// means none. When it equals MetricsAddr, one server serves all three.
	HealthAddr string
	// LeaderElection, if not nil, makes the runnables that need leadership
	// (controllers, by default) run only while this replica leads the
	// Lease it names. Lock is required; an empty Identity means the host
	// name plus a random suffix; Metrics and Logger are filled in; the
	// Manager's own callbacks run before those given. Set ReleaseOnCancel
	// for a fast hand-over on shutdown.
	LeaderElection *leaderelection.Config
	// GracefulShutdownTimeout bounds the wait for runnables to return once
	// the Manager stops. Zero means DefaultGracefulShutdownTimeout.
	GracefulShutdownTimeout time.Duration
	// TracerProvider, if set, traces every API request of the shared
	// client and every reconcile of the Manager's controllers (unless
	// their Options name another) as OpenTelemetry spans. Nil means no
	// tracing.
	TracerProvider trace.TracerProvider
	// Logger receives the Manager's records and is the default logger of
	// its controllers, informers, client and leader election. Nil means
	// errors and warnings go to slog.Default() and info records nowhere.
	Logger *slog.Logger
}

// Manager runs controllers and other runnables on one shared client and
// informer factory, serves health, readiness and metrics endpoints, and
// optionally takes part in a leader election.
//
// Build it with NewManager, add controllers (NewController) and runnables
// (Add), then call Start once.
type Manager struct {
	opts     ManagerOptions
	log      *slog.Logger
	client   *client.Client
	factory  *informer.Factory
	registry *prometheus.Registry
	elector  *leaderelection.Elector

	healthz, readyz checks

	mu          sync.Mutex
	runnables   []Runnable
	controllers []*Controller
	started     bool

	// Set by Start before the election runs, read by the leader callback.
	leaderRunnables []Runnable
	runCtx          context.Context
	cancel          context.CancelCauseFunc

	elected     chan struct{}
	electedOnce sync.Once
	leading     atomic.Bool
	serving     chan struct{}
	healthAddr  atomic.Value // net.Addr
	metricsAddr atomic.Value // net.Addr
}

// NewManager builds a Manager: its client (with metrics), informer factory,
// registry and, if asked, elector. It returns an error wrapping
// ErrInvalidOptions for unusable options, the rest client's *rest.ConfigError,
// or a leaderelection *ConfigError.
func NewManager(opts ManagerOptions) (*Manager, error) {
	if opts.Config == nil {
		return nil, invalid("nil Config")
	}
	if opts.GracefulShutdownTimeout <= 0 {
		opts.GracefulShutdownTimeout = DefaultGracefulShutdownTimeout
	}
	m := &Manager{opts: opts, log: opts.Logger, elected: make(chan struct{}), serving: make(chan struct{})}
	m.log = defaultlog.Or(m.log)
	m.registry = opts.Registry
	if m.registry == nil {
		m.registry = prometheus.NewRegistry()
		m.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}

	cm, err := newClientMetrics(m.registry)
	if err != nil {
		return nil, fmt.Errorf("client metrics: %w", err)
	}
	cfg := *opts.Config
	userWrap := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if userWrap != nil {
			rt = userWrap(rt)
		}
		rt = cm.wrap(rt)
		if opts.TracerProvider != nil {
			rt = &traced{next: rt, tracer: opts.TracerProvider.Tracer(tracerName)}
		}
		return rt
	}
	if cfg.Logger == nil {
		cfg.Logger = m.log
	}
	rc, err := rest.NewClient(&cfg)
	if err != nil {
		return nil, err
	}
	m.client = client.New(rc, opts.Client)
	fo := opts.Informers
	if fo.Logger == nil {
		fo.Logger = m.log
	}
	m.factory = informer.NewFactory(m.client, fo)
	if err := m.registry.Register(&syncCollector{m: m}); err != nil {
		return nil, fmt.Errorf("informer metrics: %w", err)
	}

	m.healthz.add("ping", func(*http.Request) error { return nil })
	m.readyz.add("ping", func(*http.Request) error { return nil })
	m.readyz.add("informers", func(*http.Request) error { return m.syncState() })

	if opts.LeaderElection != nil {
		if err := m.setupElection(*opts.LeaderElection); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *Manager) setupElection(cfg leaderelection.Config) error {
	if cfg.Identity == "" {
		host, _ := os.Hostname()
		var b [4]byte
		_, _ = rand.Read(b[:])
		cfg.Identity = host + "_" + hex.EncodeToString(b[:])
	}
	lm, err := promleader.New(promleader.Options{Registerer: m.registry})
	if err != nil {
		return fmt.Errorf("leader election metrics: %w", err)
	}
	cfg.Metrics = lm
	if cfg.Logger == nil {
		cfg.Logger = m.log
	}
	user := cfg.Callbacks
	cfg.Callbacks.OnStartedLeading = func(ctx context.Context) {
		m.leading.Store(true)
		m.electedOnce.Do(func() { close(m.elected) })
		if user.OnStartedLeading != nil {
			go user.OnStartedLeading(ctx)
		}
		m.runLeaderRunnables(ctx)
	}
	cfg.Callbacks.OnStoppedLeading = func() {
		m.leading.Store(false)
		if user.OnStoppedLeading != nil {
			user.OnStoppedLeading()
		}
	}
	e, err := leaderelection.New(leaderelection.NewStore(m.client), cfg)
	if err != nil {
		return err
	}
	m.elector = e
	return nil
}

// Client returns the shared client. It is safe for concurrent use.
func (m *Manager) Client() *client.Client { return m.client }

// Factory returns the shared informer factory, started by Start.
func (m *Manager) Factory() *informer.Factory { return m.factory }

// Registry returns the metrics registry served on /metrics.
func (m *Manager) Registry() *prometheus.Registry { return m.registry }

// Logger returns the Manager's logger.
func (m *Manager) Logger() *slog.Logger { return m.log }

// Elected is closed when this replica starts leading, or when Start begins
// if there is no leader election.
func (m *Manager) Elected() <-chan struct{} { return m.elected }

// IsLeader reports whether the leader-only runnables may run now: true
// while leading, and always once started without leader election.
func (m *Manager) IsLeader() bool { return m.leading.Load() }

// Serving is closed once Start has bound the metrics and health listeners.
func (m *Manager) Serving() <-chan struct{} { return m.serving }

// HealthAddr returns the bound address of the health server, nil before
// Serving is closed or when there is none.
func (m *Manager) HealthAddr() net.Addr { a, _ := m.healthAddr.Load().(net.Addr); return a }

// MetricsAddr returns the bound address of the metrics server, nil before
// Serving is closed or when there is none.
func (m *Manager) MetricsAddr() net.Addr { a, _ := m.metricsAddr.Load().(net.Addr); return a }

// Add registers r to run when the Manager starts. Controllers made by
// NewController are added already. It returns ErrAlreadyStarted after
// Start.
func (m *Manager) Add(r Runnable) error {
	if r == nil {
		return invalid("nil Runnable")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started {
		return fmt.Errorf("manager: Add: %w", ErrAlreadyStarted)
	}
	m.runnables = append(m.runnables, r)
	if c, ok := r.(*Controller); ok {
		m.controllers = append(m.controllers, c)
	}
	return nil
}

// NewController creates a Controller on the Manager's factory, with the
// Manager's registry and (when opts.Logger is nil) logger, and adds it.
func (m *Manager) NewController(opts Options) (*Controller, error) {
	if opts.Registerer == nil {
		opts.Registerer = m.registry
	}
	if opts.Logger == nil {
		opts.Logger = m.log
	}
	if opts.TracerProvider == nil {
		opts.TracerProvider = m.opts.TracerProvider
	}
	c, err := New(m.factory, opts)
	if err != nil {
		return nil, err
	}
	if err := m.Add(c); err != nil {
		return nil, err
	}
	return c, nil
}

// AddHealthzCheck adds a check to /healthz.
func (m *Manager) AddHealthzCheck(name string, c Check) { m.healthz.add(name, c) }

// AddReadyzCheck adds a check to /readyz, which already checks that the
// informers of every controller have synced.
func (m *Manager) AddReadyzCheck(name string, c Check) { m.readyz.add(name, c) }

// HealthHandler serves /healthz and /readyz, for use in a server of one's
// own.
func (m *Manager) HealthHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/healthz", &m.healthz)
	mux.Handle("/healthz/", &m.healthz)
	mux.Handle("/readyz", &m.readyz)
	mux.Handle("/readyz/", &m.readyz)
	return mux
}

// MetricsHandler serves the registry in the Prometheus exposition format.
func (m *Manager) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

// syncState returns nil when the informers of every controller have
// synced, else an error naming those that have not.
func (m *Manager) syncState() error {
	m.mu.Lock()
	cs := slices.Clone(m.controllers)
	m.mu.Unlock()
	var pending []string
	for _, c := range cs {
		c.informerStates(func(name string, synced bool) {
			if !synced && !slices.Contains(pending, name) {
				pending = append(pending, name)
			}
		})
	}
	if len(pending) > 0 {
		return fmt.Errorf("informers not synced: %s", strings.Join(pending, ", "))
	}
	return nil
}

// Start runs everything until ctx is done, then stops it all: it binds the
// servers, starts the informer factory and the runnables that do not need
// leadership, and those that do once elected (at once without leader
// election). It returns nil after a clean stop; the first error of a
// runnable (which stops the rest); an error wrapping ErrLeadershipLost and
// the *leaderelection.LostError when leadership is lost while ctx is live
// (the leader-only runnables are then cancelled at once, without drain:
// the process must stop acting, and usually exits); a listen error; or
// ErrAlreadyStarted.
func (m *Manager) Start(ctx context.Context) error {
	m.mu.Lock()
	if m.started {
		m.mu.Unlock()
		return fmt.Errorf("manager: %w", ErrAlreadyStarted)
	}
	m.started = true
	runnables := slices.Clone(m.runnables)
	m.mu.Unlock()

	parent := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	stopServers, err := m.serve()
	if err != nil {
		return err
	}
	defer stopServers()

	m.factory.Start(ctx)

	var wg sync.WaitGroup
	var leaderOnly []Runnable
	for _, r := range runnables {
		if le, ok := r.(LeaderElectionRunnable); m.elector != nil && (!ok || le.NeedLeaderElection()) {
			leaderOnly = append(leaderOnly, r)
			continue
		}
		wg.Go(func() { m.run(ctx, nil, r, cancel) })
	}
	if m.elector == nil {
		m.leading.Store(true)
		m.electedOnce.Do(func() { close(m.elected) })
	} else {
		m.mu.Lock()
		m.leaderRunnables, m.runCtx, m.cancel = leaderOnly, ctx, cancel
		m.mu.Unlock()
		wg.Go(func() {
			err := m.elector.Run(ctx)
			if err != nil && parent.Err() == nil {
				cancel(fmt.Errorf("manager: %w: %w", ErrLeadershipLost, err))
			}
		})
	}

	<-ctx.Done()
	m.log.Info("manager stopping", "cause", context.Cause(ctx))
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var errs []error
	select {
	case <-done:
	case <-time.After(m.opts.GracefulShutdownTimeout):
		errs = append(errs, fmt.Errorf("manager: runnables still running after %s", m.opts.GracefulShutdownTimeout))
	}
	if err := m.factory.Wait(); err != nil {
		errs = append(errs, err)
	}
	if cause := context.Cause(ctx); parent.Err() == nil && cause != nil && !errors.Is(cause, context.Canceled) {
		errs = append([]error{cause}, errs...)
	}
	return errors.Join(errs...)
}

// runLeaderRunnables runs the leader-only runnables for one term and
// returns when they all have. If the term ends while the Manager is still
// running (leadership lost), reconciles are cancelled at once; if it ends
// because the Manager stops, controllers drain as usual.
func (m *Manager) runLeaderRunnables(term context.Context) {
	m.mu.Lock()
	rs, runCtx, cancel := m.leaderRunnables, m.runCtx, m.cancel
	m.mu.Unlock()
	hard, hardCancel := context.WithCancel(context.WithoutCancel(term))
	defer hardCancel()
	stop := context.AfterFunc(term, func() {
		if runCtx.Err() == nil {
			m.log.Error("leadership lost: stopping leader-only work at once")
			hardCancel()
		}
	})
	defer stop()
	m.log.Info("leading: starting leader-only runnables", "count", len(rs))
	var wg sync.WaitGroup
	for _, r := range rs {
		wg.Go(func() { m.run(term, hard, r, cancel) })
	}
	wg.Wait()
}

// run runs one runnable; an error stops the Manager.
func (m *Manager) run(ctx, hard context.Context, r Runnable, cancel context.CancelCauseFunc) {
	var err error
	if c, ok := r.(*Controller); ok {
		err = c.run(ctx, hard)
	} else {
		err = r.Start(ctx)
	}
	if err != nil {
		m.log.Error("runnable failed; stopping the manager", "err", err)
		cancel(err)
	}
}

// serve binds the metrics and health listeners and serves them until the
// returned function is called.
func (m *Manager) serve() (stop func(), err error) {
	type server struct {
		addr string
		mux  *http.ServeMux
		dst  *atomic.Value
	}
	var servers []*server
	health := m.HealthHandler()
	if a := m.opts.MetricsAddr; a != "" {
		mux := http.NewServeMux()
		mux.Handle("/metrics", m.MetricsHandler())
		if m.opts.HealthAddr == a {
			mux.Handle("/", health)
		}
		servers = append(servers, &server{a, mux, &m.metricsAddr})
	}
	if a := m.opts.HealthAddr; a != "" && a != m.opts.MetricsAddr {
		mux := http.NewServeMux()
		mux.Handle("/", health)
		servers = append(servers, &server{a, mux, &m.healthAddr})
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
		hs := &http.Server{Handler: s.mux, ReadHeaderTimeout: 10 * time.Second}
		running = append(running, hs)
		wg.Go(func() {
			if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				m.log.Error("server failed", "addr", ln.Addr().String(), "err", err)
			}
		})
	}
	close(m.serving)
	return stop, nil
}

// syncCollector exports the sync state of the controllers' informers.
type syncCollector struct{ m *Manager }

var syncDesc = prometheus.NewDesc("kubego_informer_synced",
	"1 when the informer has synced its cache, else 0.", []string{"informer"}, nil)

func (c *syncCollector) Describe(ch chan<- *prometheus.Desc) { ch <- syncDesc }

func (c *syncCollector) Collect(ch chan<- prometheus.Metric) {
	c.m.mu.Lock()
	cs := slices.Clone(c.m.controllers)
	c.m.mu.Unlock()
	seen := map[string]bool{}
	for _, ctl := range cs {
		ctl.informerStates(func(name string, synced bool) {
			if seen[name] {
				return
			}
			seen[name] = true
			v := 0.0
			if synced {
				v = 1
			}
			if metric, err := prometheus.NewConstMetric(syncDesc, prometheus.GaugeValue, v, name); err == nil {
				ch <- metric
			}
		})
	}
}
