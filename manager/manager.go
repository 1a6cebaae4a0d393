package manager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fleet"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/leaderelection"
)

// Manager hosts the controllers of one process: it runs them and other
// runnables on one shared client and informer factory, serves health,
// readiness and metrics endpoints, and optionally takes part in a leader
// election.
//
// Build it with New, add controllers (NewController) and runnables (Add),
// make readers of its cache (informer.NewReader[T](mgr, ...): a Manager
// is an informer.Host), then call Start once; controllers and runnables
// may also be added while it runs. Its methods are safe for concurrent
// use.
type Manager struct {
	opts     Options
	log      *slog.Logger
	client   *client.Client
	factory  *informer.Factory
	registry *prometheus.Registry
	elector  *leaderelection.Elector
	host     *fleet.Cluster
	// wrap adds the client metrics and spans to a cluster's transport.
	wrap func(http.RoundTripper) http.RoundTripper

	// The clusters besides the host (see clusters.go). cops serializes
	// adding, replacing and removing them and engaging controllers;
	// cmu guards the map and the fields below for quick lookups.
	cops         sync.Mutex
	cmu          sync.Mutex
	clusters     map[string]*fleet.Cluster
	multi        []*controller.Controller // the MultiCluster controllers; written under both locks
	clusterCtx   context.Context          // set by Start: the clusters run under it
	declared     []informer.Declaration   // given to Declare; the clusters added get them
	clustersDone bool                     // Start has stopped the clusters

	healthz, readyz checks
	recs            recorders
	metricsSec      *metricsSecurity

	mu        sync.Mutex
	runnables []Runnable
	synced    []syncStater // the runnables that report sync states (controllers)
	began     bool         // Start was called
	started   bool         // Start runs what Add is given
	stopping  bool         // Start's context is done: Add refuses

	// Set by Start (before the election runs), read by Add and the
	// leader callback, under mu.
	leaderRunnables []Runnable
	runCtx          context.Context
	cancel          context.CancelCauseFunc
	term            *term // the current leader term; nil while not leading
	// runs counts the runnables Start runs outside leader terms, and the
	// election; Start waits for it once its context is done.
	runs sync.WaitGroup

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
	// The Config is built into the host cluster below and not kept: its
	// credentials would print through fmt (an unexported field is printed
	// without calling its methods).
	m.opts.Config = nil
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
		if opts.LeaderElection != nil {
			// Leader-only work whose term is over by the clock sends
			// nothing, even before the term's timer has run (a process
			// resumed after being stopped).
			rt = leaderelection.GuardTransport(rt)
		}
		return rt
	}
	if cfg.Logger == nil {
		cfg.Logger = m.log
	}
	m.wrap = func(rt http.RoundTripper) http.RoundTripper {
		rt = cm.wrap(rt)
		if opts.TracerProvider != nil {
			rt = &traced{next: rt, tracer: opts.TracerProvider.Tracer(tracerName)}
		}
		return rt
	}
	host, err := fleet.New("", &cfg, fleet.Options{Client: opts.Client, Informers: opts.Informers, Logger: m.log})
	if err != nil {
		return nil, err
	}
	m.host, m.client, m.factory = host, host.Client(), host.Factory()
	m.clusters = map[string]*fleet.Cluster{}
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

// Declare fixes the informer options (namespace, selectors, transform,
// indexes) of the types the declarations name, for every controller
// source and reader of the Manager and of every cluster it holds or adds:
// a type's options are given here once, before anything asks for the
// type; sources and readers name the type alone (see informer.Declare).
// Undeclared types are cached whole, in every namespace. A reusable
// controller's setup function declares what it needs:
//
//	err := mgr.Declare(informer.DeclareMetadata(deployments, informer.SharedOptions{LabelSelector: "!sync-by"}))
//
// It returns the factory's error wrapping informer.ErrDeclared for a type
// declared before, or asked for already with other options; then nothing
// of the call is recorded in the host cluster.
func (m *Manager) Declare(ds ...informer.Declaration) error {
	m.cops.Lock()
	defer m.cops.Unlock()
	if err := m.factory.Declare(ds...); err != nil {
		return fmt.Errorf("manager: Declare: %w", err)
	}
	m.cmu.Lock()
	m.declared = append(m.declared, ds...)
	clusters := make([]*fleet.Cluster, 0, len(m.clusters))
	for _, cl := range m.clusters {
		clusters = append(clusters, cl)
	}
	m.cmu.Unlock()
	var errs []error
	for _, cl := range clusters {
		if err := cl.Factory().Declare(ds...); err != nil {
			errs = append(errs, fmt.Errorf("manager: Declare in cluster %q: %w", cl.Name(), err))
		}
	}
	return errors.Join(errs...)
}

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
// NewController are added already.
//
// Added while the Manager runs, r starts at once: a runnable that needs
// leadership (see LeaderElectionRunnable) joins the current term if this
// replica leads, and stops with it (aborted like the others if leadership
// is lost), else it waits for the next term; any other runnable runs
// until the Manager stops. Either way the Manager waits for it to return
// when it stops, as for the runnables added before Start, and an error it
// returns stops the Manager. A controller's informers start on the running
// factory as soon as the controller is made. Add returns an error wrapping
// ErrStopped once the Manager has begun to stop.
func (m *Manager) Add(r Runnable) error {
	if r == nil {
		return invalid("nil Runnable")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopping {
		return fmt.Errorf("manager: Add: %w", ErrStopped)
	}
	m.runnables = append(m.runnables, r)
	if c, ok := r.(syncStater); ok {
		m.synced = append(m.synced, c)
	}
	if !m.started {
		return nil
	}
	if m.needsLeader(r) {
		m.leaderRunnables = append(m.leaderRunnables, r)
		if t := m.term; t != nil && !t.closed {
			cancel := m.cancel
			t.wg.Go(func() { m.run(t.ctx, t.hard, r, cancel) })
		}
		return nil
	}
	ctx, cancel := m.runCtx, m.cancel
	m.runs.Go(func() { m.run(ctx, nil, r, cancel) })
	return nil
}

// needsLeader reports whether r runs only while leading.
func (m *Manager) needsLeader(r Runnable) bool {
	le, ok := r.(LeaderElectionRunnable)
	return m.elector != nil && (!ok || le.NeedLeaderElection())
}

// NewController creates a controller on the Manager's factory with
// controller.New, and adds it: one call. The Manager fills in the fields
// left zero in opts: Registerer (its registry), Logger and TracerProvider
// (its own), Standby (Options.Standby), and Kinds (its client, so Owns finds a custom resource
// owner's kind in the client's Registry, and a source of a type the client
// cannot map fails here rather than at Start). It returns New's errors
// (among them the factory's *informer.OptionsConflictError when a source
// asks for a type with options other than those it already has), and
// ErrStopped once the Manager has begun to stop. Made while the Manager
// runs, the controller starts at once (see Add).
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
	if opts.Standby == controller.StandbyDefault {
		opts.Standby = m.opts.Standby
	}
	m.mu.Lock()
	stopping := m.stopping
	m.mu.Unlock()
	if stopping {
		return nil, fmt.Errorf("manager: NewController: %w", ErrStopped)
	}
	c, err := controller.New(m.factory, opts)
	if err != nil {
		return nil, err
	}
	if c.MultiCluster() {
		if err := m.engageAll(c); err != nil {
			return nil, err
		}
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
// error wrapping the *leaderelection.LostError (and so
// leaderelection.ErrLeaseLost) when
// leadership is lost while ctx is live (the leader-only runnables are then
// cancelled at once, without drain: the process must stop acting, and
// usually exits); a listen error; or ErrAlreadyStarted.
func (m *Manager) Start(ctx context.Context) error {
	m.mu.Lock()
	if m.began {
		m.mu.Unlock()
		return fmt.Errorf("manager: %w", ErrAlreadyStarted)
	}
	m.began = true
	m.mu.Unlock()

	parent := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	stopServers, err := m.serve()
	if err != nil {
		m.mu.Lock()
		m.stopping = true
		m.mu.Unlock()
		grace, cancelGrace := context.WithTimeout(context.WithoutCancel(ctx), m.opts.GracefulShutdownTimeout)
		defer cancelGrace()
		m.shutdownRecorders(grace) // events recorded before Start
		_ = m.stopClusters()       // none started: frees their readers
		return err
	}
	defer stopServers()

	m.factory.Start(ctx)
	m.startClusters(ctx)

	// From here on Add runs what it is given; the runnables added so far
	// are started under the same lock, so none is run twice or missed.
	m.mu.Lock()
	m.started = true
	m.runCtx, m.cancel = ctx, cancel
	for _, r := range m.runnables {
		if m.needsLeader(r) {
			m.leaderRunnables = append(m.leaderRunnables, r)
			continue
		}
		m.runs.Go(func() { m.run(ctx, nil, r, cancel) })
	}
	if m.elector != nil {
		m.runs.Go(func() {
			err := m.elector.Run(ctx)
			if err != nil && parent.Err() == nil {
				cancel(fmt.Errorf("manager: %w", err))
			}
		})
	}
	m.mu.Unlock()
	if m.elector == nil {
		m.leading.Store(true)
		m.electedOnce.Do(func() { close(m.elected) })
	}

	<-ctx.Done()
	m.log.Info("manager stopping", "cause", context.Cause(ctx))
	m.mu.Lock()
	m.stopping = true // no runnable joins m.runs from now on
	m.mu.Unlock()
	grace, cancelGrace := context.WithTimeout(context.WithoutCancel(ctx), m.opts.GracefulShutdownTimeout)
	defer cancelGrace()
	done := make(chan struct{})
	go func() { m.runs.Wait(); close(done) }()
	var errs []error
	select {
	case <-done:
	case <-grace.Done():
		errs = append(errs, fmt.Errorf("manager: runnables still running after %s", m.opts.GracefulShutdownTimeout))
	}
	// Events recorded while the runnables drained are written now, with
	// what is left of the grace period, while the client still works.
	m.shutdownRecorders(grace)
	if err := m.stopClusters(); err != nil {
		errs = append(errs, err)
	}
	if err := m.factory.Wait(); err != nil {
		errs = append(errs, err)
	}
	if parent.Err() == nil {
		if cause := stopCause(context.Cause(ctx)); cause != nil {
			errs = append([]error{cause}, errs...)
		}
	}
	return errors.Join(errs...)
}

// term is one leader term: the runnables that need leadership run in it.
type term struct {
	ctx    context.Context // the term's: done when it ends
	hard   context.Context // done when leadership is lost (see run)
	wg     sync.WaitGroup  // the runnables of the term
	closed bool            // the term ended: no runnable joins; guarded by Manager.mu
}

// runLeaderRunnables runs the leader-only runnables for one term, those
// added during it included, and returns when the term has ended and they
// all have returned. If the term ends while the Manager is still running
// (leadership lost), reconciles are cancelled at once; if it ends because
// the Manager stops, controllers drain as usual.
func (m *Manager) runLeaderRunnables(termCtx context.Context) {
	hard, hardCancel := context.WithCancel(context.WithoutCancel(termCtx))
	defer hardCancel()
	t := &term{ctx: termCtx, hard: hard}
	m.mu.Lock()
	runCtx, cancel := m.runCtx, m.cancel
	stop := context.AfterFunc(termCtx, func() {
		if runCtx.Err() == nil {
			m.log.Error("leadership lost: stopping leader-only work at once")
			hardCancel()
		}
	})
	defer stop()
	m.log.Info("leading: starting leader-only runnables", "count", len(m.leaderRunnables))
	for _, r := range m.leaderRunnables {
		t.wg.Go(func() { m.run(termCtx, hard, r, cancel) })
	}
	m.term = t
	m.mu.Unlock()

	<-termCtx.Done()
	m.mu.Lock()
	t.closed = true // wg.Wait below never races an Add joining the term
	if m.term == t {
		m.term = nil
	}
	m.mu.Unlock()
	t.wg.Wait()
}

// run runs one runnable; an error stops the Manager. An
// AbortableRunnable is aborted when hard is done.
func (m *Manager) run(ctx, hard context.Context, r Runnable, cancel context.CancelCauseFunc) {
	var err error
	if a, ok := r.(AbortableRunnable); ok {
		err = a.StartAbortable(ctx, hard)
	} else {
		err = r.Start(ctx)
	}
	if err != nil {
		m.log.Error("runnable failed; stopping the manager", "err", err)
		cancel(err)
	}
}

// stopCause is the error Start reports for why it stopped while its parent
// context was still live: a lost leadership or a failed runnable, but not a
// plain cancellation. A lost leadership is reported even when the elector's
// error wraps context.Canceled (a renewal cancelled at its deadline).
func stopCause(cause error) error {
	switch {
	case cause == nil:
		return nil
	case errors.Is(cause, leaderelection.ErrLeaseLost):
		return cause
	case errors.Is(cause, context.Canceled):
		return nil
	}
	return cause
}
