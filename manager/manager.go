package manager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/rest"
)

// Manager hosts the controllers of one process: it runs them and other
// runnables on one shared client and informer factory, serves health,
// readiness and metrics endpoints, and optionally takes part in a leader
// election.
//
// Build it with New, add controllers (NewController) and runnables (Add),
// then call Start once. Its methods are safe for concurrent use.
type Manager struct {
	opts     Options
	log      *slog.Logger
	client   *client.Client
	factory  *informer.Factory
	registry *prometheus.Registry
	elector  *leaderelection.Elector

	healthz, readyz checks
	recs            recorders
	metricsSec      *metricsSecurity

	mu          sync.Mutex
	runnables   []Runnable
	controllers []*controller.Controller
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

// New builds a Manager: its client (with metrics), informer factory,
// registry and, if asked, elector. It returns an error wrapping
// ErrInvalidOptions for unusable options, the rest client's *rest.ConfigError,
// or a leaderelection *ConfigError.
func New(opts Options) (*Manager, error) {
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

	if err := m.setupSecureMetrics(); err != nil {
		return nil, err
	}
	if opts.LeaderElection != nil {
		if err := m.setupElection(*opts.LeaderElection); err != nil {
			return nil, err
		}
	}
	return m, nil
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
	if c, ok := r.(*controller.Controller); ok {
		m.controllers = append(m.controllers, c)
	}
	return nil
}

// NewController creates a controller on the Manager's factory with
// controller.New, and adds it: one call. The Manager fills in the fields
// left zero in opts: Registerer (its registry), Logger and TracerProvider
// (its own), and Kinds (its client, so Owns finds a custom resource
// owner's kind in the client's Registry, and a source of a type the client
// cannot map fails here rather than at Start). It returns New's errors,
// and ErrAlreadyStarted after Start.
func (m *Manager) NewController(opts controller.Options) (*controller.Controller, error) {
	if opts.Registerer == nil {
		opts.Registerer = m.registry
	}
	if opts.Logger == nil {
		opts.Logger = m.log
	}
	if opts.TracerProvider == nil {
		opts.TracerProvider = m.opts.TracerProvider
	}
	if opts.Kinds == nil {
		opts.Kinds = m.client
	}
	c, err := controller.New(m.factory, opts)
	if err != nil {
		return nil, err
	}
	if err := m.Add(c); err != nil {
		return nil, err
	}
	return c, nil
}

// Start runs everything until ctx is done, then stops it all: it binds the
// servers, starts the informer factory and the runnables that do not need
// leadership, and those that do once elected (at once without leader
// election). Once ctx is done it waits up to GracefulShutdownTimeout for
// the runnables to return, then flushes the event recorders (see
// EventRecorder) within what is left of that time. It returns nil after a
// clean stop; the first error of a runnable (which stops the rest); an
// error wrapping ErrLeadershipLost and the *leaderelection.LostError when
// leadership is lost while ctx is live (the leader-only runnables are then
// cancelled at once, without drain: the process must stop acting, and
// usually exits); a listen error; or ErrAlreadyStarted.
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
		grace, cancelGrace := context.WithTimeout(context.WithoutCancel(ctx), m.opts.GracefulShutdownTimeout)
		defer cancelGrace()
		m.shutdownRecorders(grace) // events recorded before Start
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
	grace, cancelGrace := context.WithTimeout(context.WithoutCancel(ctx), m.opts.GracefulShutdownTimeout)
	defer cancelGrace()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var errs []error
	select {
	case <-done:
	case <-grace.Done():
		errs = append(errs, fmt.Errorf("manager: runnables still running after %s", m.opts.GracefulShutdownTimeout))
	}
	// Events recorded while the runnables drained are written now, with
	// what is left of the grace period, while the client still works.
	m.shutdownRecorders(grace)
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

// run runs one runnable; an error stops the Manager. A controller is
// aborted when hard is done (see controller.Controller.StartAbortable).
func (m *Manager) run(ctx, hard context.Context, r Runnable, cancel context.CancelCauseFunc) {
	var err error
	if c, ok := r.(*controller.Controller); ok {
		err = c.StartAbortable(ctx, hard)
	} else {
		err = r.Start(ctx)
	}
	if err != nil {
		m.log.Error("runnable failed; stopping the manager", "err", err)
		cancel(err)
	}
}
