package controller

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"reflect"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/rbac"
	"github.com/kubego/kubego/workqueue"
	"github.com/kubego/kubego/workqueue/promqueue"
)

// Defaults of Options.
const (
	DefaultCacheSyncTimeout = 2 * time.Minute
	DefaultDrainTimeout     = 30 * time.Second
)

// Options configure a Controller. Reconciler and at least one Source are
// required; every other field has a useful zero value.
type Options struct {
	// Name identifies the controller in logs and metrics (the "controller"
	// label). It must be unique among the controllers sharing a metrics
	// registry. Empty means "controller".
	Name string
	// Reconciler is the code the workers run for each Request.
	Reconciler Reconciler
	// Sources enqueue Requests: at most one For, any number of Owns,
	// Watches and Channel. A source value may be given to several
	// Controllers; a Channel to one only (ErrSourceReused).
	Sources []Source
	// MaxConcurrentReconciles is the number of workers. Zero means 1.
	MaxConcurrentReconciles int
	// RateLimiter sets the delay of retries after errors and of
	// Result.Requeue. Nil means workqueue.DefaultRateLimiter: per-request
	// exponential backoff from 5ms to 1000s, and 10 retries per second
	// overall after a burst of 100.
	RateLimiter workqueue.RateLimiter[Request]
	// CacheSyncTimeout bounds the whole wait before the workers start: for
	// the sources' informers to sync and their handlers to be given the
	// initial objects. Zero means DefaultCacheSyncTimeout.
	CacheSyncTimeout time.Duration
	// DrainTimeout is how long Start waits, once its context is done, for
	// the reconciles in flight to finish; then their context is cancelled.
	// Zero means DefaultDrainTimeout; negative means no wait.
	DrainTimeout time.Duration
	// PropagatePanics lets a panic in Reconcile crash the process instead
	// of being recovered and treated as an error.
	PropagatePanics bool
	// Lane, if not nil, sorts waiting Requests into lanes that the workers
	// serve in turn (workqueue.Options.Lane), so that one lane's backlog
	// (a tenant's namespace flooding its objects) delays another's
	// Request by at most one Request per busy lane. Nil means one lane,
	// except with MultiCluster, where Requests are laned by cluster
	// (Request.Cluster) so that a cluster's initial list or flood of
	// changes does not hold up the others. Return "" for a single lane.
	Lane func(Request) string
	// PriorityQueue makes the workqueue give live changes priority over
	// background work: the objects of the sources' initial lists (at start,
	// and synthetic adds), of resyncs and of relists that did not change
	// them are queued at low priority (workqueue.Queue.AddLow), so that
	// after a restart a change made now is reconciled before the backlog
	// of existing objects. Deletes, other changes, Channel sources and
	// retries keep normal priority. The queue's guarantees (one worker per
	// Request, deduplication, rate limiting, drain) are unchanged.
	PriorityQueue bool
	// MultiCluster makes the controller watch its sources in every cluster
	// it is engaged with (Engage), besides the host cluster of the
	// factory given to New; a manager.Manager engages it with each
	// cluster it holds, present and future. The Sources are then
	// templates: each cluster gets its own copy, on its own factory, and
	// its Requests carry the cluster's name (Request.Cluster). The
	// workers, queue, rate limiter and metrics are shared by all clusters,
	// the queue serving the clusters in turn (see Lane);
	// only the host's sources must sync before the workers start, and a
	// cluster that is slow or unreachable holds up nothing but its own
	// Requests. A Channel source is not copied: it runs once, and its
	// Requests name their cluster themselves.
	MultiCluster bool
	// SkipHostCluster, with MultiCluster, watches the sources only in the
	// engaged clusters, not on the factory given to New (a hub that holds
	// the clusters' kubeconfigs but is not one of them).
	SkipHostCluster bool
	// Gate, when set, lets the workers run only while it allows: once the
	// sources have synced (they start, and their caches fill, regardless),
	// Start calls Gate with the function that runs the workers, and Gate
	// calls it at most once, while the controller may work — with a
	// context that ends when it must stop gracefully and an abort context
	// that ends when it must stop at once — and returns what it returned,
	// or an error of its own (such as the loss of a membership). Start
	// returns what Gate returns. sharding.Member.Gate is one: the workers
	// run while the replica holds its Lease in the ring. A gated
	// controller usually sets SkipLeaderElection: the gate is its
	// election.
	Gate func(ctx context.Context, run func(ctx, abort context.Context) error) error
	// SyncPeriod, when positive, enqueues every object of the For source's
	// cache again at that period (at low priority with PriorityQueue), as
	// an update of the object to itself: predicates see it (so
	// GenerationChanged drops it), and a reconciler that reads the world
	// outside the cluster catches up with it. Zero means only changes
	// enqueue.
	SyncPeriod time.Duration
	// ReconcileTimeout, when positive, bounds each Reconcile: its context
	// ends after it, with context.Cause ErrReconcileTimeout. A reconciler
	// that returns the context's error is retried with backoff like any
	// error. Zero means no bound beyond the controller's own stop.
	ReconcileTimeout time.Duration
	// SkipLeaderElection makes a manager.Manager with leader election run
	// this controller on every replica, not only on the leader.
	SkipLeaderElection bool
	// Standby says whether the informers of the sources run before the
	// controller starts — on a replica of a manager.Manager with leader
	// election, while it does not lead. Zero means StandbyDefault: the
	// Manager's Options.Standby, and warm when that is zero too (or
	// without a Manager). See Standby.
	Standby Standby
	// Kinds finds the kinds of the sources' Go types without the server:
	// the owner kind of Owns sources (from the For type), and, in New,
	// whether each source's type can be mapped at all, so that a type the
	// client does not know fails New instead of Start. A *client.Client
	// implements it; manager.Manager.NewController sets the Manager's. Nil
	// means Scheme alone, and an unknown type fails only at Start.
	Kinds client.KindResolver
	// Scheme finds the kind of the For type for Owns sources when Kinds
	// is nil or does not know it. Nil means the built-in kinds of
	// k8s.io/api (as in scheme.Default(), recognised by their Go types, so
	// that a controller links only the API groups it uses).
	Scheme *runtime.Scheme
	// Logger receives the controller's records. Nil means errors (failed
	// reconciles, panics) and warnings go to slog.Default() and info
	// records nowhere.
	Logger *slog.Logger
	// Clock is the time source of the queue and of durations. Nil means
	// the system clock.
	Clock clock.Clock
	// Registerer, if set, receives the controller's metrics: its workqueue's
	// (package promqueue, "name" label = Name) and the reconcile counters
	// and durations. Nil means no metrics work at all.
	Registerer prometheus.Registerer
	// TracerProvider, if set, traces each reconcile as an OpenTelemetry
	// span (the parent of the client spans of a manager.Manager's client).
	// Nil means no tracing and no tracing cost.
	TracerProvider trace.TracerProvider
	// Permissions are the API requests the reconciler makes beyond
	// reading its sources' caches: its writes, and reads that bypass the
	// cache. A manager.Manager adds them to the permissions it derives
	// (manager.Manager.Permissions); the sources' list and watch are
	// derived without being named here.
	Permissions []rbac.Permission
}

// Controller runs a Reconciler for the Requests its Sources enqueue. It owns
// its queue: handlers only Add, and the loop does Get, Done, Forget and
// the retries, so no user code can forget them.
//
// Create one with New or with manager.Manager.NewController, then Start it
// once.
type Controller struct {
	name    string
	opts    Options
	factory *informer.Factory
	queue   *workqueue.Queue[Request]
	log     *slog.Logger
	clock   clock.Clock
	metrics *boundMetrics // nil: none
	tracer  trace.Tracer  // nil: none

	started atomic.Bool
	synced  atomic.Bool
	active  atomic.Int64

	// sources run on the host cluster: Options.Sources, or with
	// MultiCluster their copies (none with SkipHostCluster) and the
	// Channel sources.
	sources []source
	// templates are the state of Options.Sources for this Controller: the
	// host's sources themselves without MultiCluster, else what each
	// cluster's sources are cloned from.
	templates []source
	forType   reflect.Type                // the For source's, nil if none
	forGVR    schema.GroupVersionResource // the For source's resource with ForMetadata

	mu       sync.Mutex
	clusters map[string]*engagement // with MultiCluster: the engaged clusters
	run      *enqueuer              // set while Start runs the sources; guarded by mu
	ended    bool                   // Start has returned; guarded by mu
}

// New returns a Controller whose sources take their informers from
// factory. The informers are created now (so a factory started later
// starts them), and handlers are registered by Start.
//
// New returns an error wrapping ErrInvalidOptions for unusable options,
// ErrUnknownKind when an Owns source cannot find its owner kind or, with
// Options.Kinds, when a source's Go type cannot be mapped (the resolver's
// error, such as a *client.UnknownTypeError, is wrapped too), the
// factory's *informer.OptionsConflictError when a source asks for a type's
// informer with options other than those the type already has (on a
// factory with informer.FactoryOptions.OneInformerPerType, as a Manager's),
// or a metrics registration error.
func New(factory *informer.Factory, opts Options) (*Controller, error) {
	if factory == nil {
		return nil, invalid("nil informer factory")
	}
	if opts.Reconciler == nil {
		return nil, invalid("no Reconciler")
	}
	if len(opts.Sources) == 0 {
		return nil, invalid("no Source")
	}
	if opts.Standby < StandbyDefault || opts.Standby > StandbyCold {
		return nil, invalid("unknown Standby %v", opts.Standby)
	}
	if opts.MaxConcurrentReconciles < 0 {
		return nil, invalid("MaxConcurrentReconciles %d < 0", opts.MaxConcurrentReconciles)
	}
	if opts.MaxConcurrentReconciles == 0 {
		opts.MaxConcurrentReconciles = 1
	}
	if opts.Name == "" {
		opts.Name = "controller"
	}
	if opts.CacheSyncTimeout <= 0 {
		opts.CacheSyncTimeout = DefaultCacheSyncTimeout
	}
	if opts.DrainTimeout == 0 {
		opts.DrainTimeout = DefaultDrainTimeout
	}
	var forType reflect.Type
	var forGVR schema.GroupVersionResource
	templates := make([]source, len(opts.Sources))
	for i, src := range opts.Sources {
		if src == nil {
			return nil, invalid("Sources[%d] is nil", i)
		}
		s := src.newSource()
		templates[i] = s
		if s.sourceKind() == kindFor {
			if forType != nil {
				return nil, invalid("more than one For source")
			}
			forType = s.goType()
			if m, ok := s.(interface {
				metadataResource() (schema.GroupVersionResource, bool)
			}); ok {
				if gvr, isMeta := m.metadataResource(); isMeta {
					forGVR = gvr
				}
			}
		}
	}
	if opts.SkipHostCluster && !opts.MultiCluster {
		return nil, invalid("SkipHostCluster without MultiCluster")
	}
	c := &Controller{
		name:      opts.Name,
		opts:      opts,
		factory:   factory,
		clock:     clock.Or(opts.Clock),
		log:       opts.Logger,
		forType:   forType,
		forGVR:    forGVR,
		templates: templates,
		clusters:  map[string]*engagement{},
	}
	c.log = defaultlog.Or(c.log)
	if opts.TracerProvider != nil {
		c.tracer = opts.TracerProvider.Tracer(tracerName)
	}
	c.log = c.log.With("controller", c.name)

	qopts := workqueue.Options[Request]{RateLimiter: opts.RateLimiter, Clock: opts.Clock, Lane: opts.Lane}
	if qopts.Lane == nil && opts.MultiCluster {
		qopts.Lane = func(r Request) string { return r.Cluster }
	}
	if opts.Registerer != nil {
		qm, err := promqueue.New(promqueue.Options{Registerer: opts.Registerer, Name: c.name, Controller: c.name})
		if err != nil {
			return nil, fmt.Errorf("controller %s: workqueue metrics: %w", c.name, err)
		}
		qopts.Metrics = qm
		m, err := newReconcileMetrics(opts.Registerer)
		if err != nil {
			return nil, fmt.Errorf("controller %s: %w", c.name, err)
		}
		c.metrics = m.bind(c.name)
		m.maxWorkers.WithLabelValues(c.name).Set(float64(opts.MaxConcurrentReconciles))
		c.metrics.active.Set(0)
	}
	sources, err := c.bindHost(factory)
	if err != nil {
		return nil, fmt.Errorf("controller %s: %w", c.name, err)
	}
	c.sources = sources
	c.queue = workqueue.New(qopts)
	return c, nil
}

// Name returns the controller's name.
func (c *Controller) Name() string { return c.name }

// Permissions returns a copy of Options.Permissions.
func (c *Controller) Permissions() []rbac.Permission { return slices.Clone(c.opts.Permissions) }

// NeedLeaderElection reports whether a manager.Manager with leader
// election runs the controller only while leading (true unless
// Options.SkipLeaderElection).
func (c *Controller) NeedLeaderElection() bool { return !c.opts.SkipLeaderElection }

// HasSynced reports whether the informers of every source have synced
// (a Channel source has none) and, once Start has registered the sources'
// handlers, whether each handler has been given every object of its
// informer's initial state.
func (c *Controller) HasSynced() bool {
	for _, s := range c.sources {
		if !s.hasSynced() {
			return false
		}
	}
	return true
}

// Started reports whether the workers are running: Start has seen every
// source sync and has not yet begun to shut down.
func (c *Controller) Started() bool { return c.synced.Load() }

// Start runs the controller until ctx is done. It starts the factory (a
// no-op if it already runs), registers the sources' handlers, waits for
// every source's informer to sync and every source's handler to have been
// given the informer's initial objects (so the Request of each of them is
// in the queue), and only then starts the workers.
//
// It returns nil once ctx is done and the workers have stopped: new
// Requests stop being taken at once, and reconciles in flight get up to
// DrainTimeout to finish before their context is cancelled. It returns a
// *SyncError (wrapping ErrNotSynced and the cause) when a source does not
// sync within CacheSyncTimeout, and ErrAlreadyStarted on a second call
// (of Start or StartAbortable).
func (c *Controller) Start(ctx context.Context) error {
	return c.StartAbortable(ctx, nil)
}

// StartAbortable is Start with a second way to stop: once the sources have
// synced, abort being done (then or later) stops the workers and cancels
// the reconciles in flight at once, without the drain; the wait for the
// sync itself ends only with ctx. A manager runs a leader-only controller
// this way and aborts it when leadership is lost, since a replica that no
// longer leads must stop acting before another one starts. A nil abort
// makes it Start; it returns what Start returns.
func (c *Controller) StartAbortable(ctx, abort context.Context) error {
	if c.started.Swap(true) {
		return fmt.Errorf("controller %s: %w", c.name, ErrAlreadyStarted)
	}
	defer func() {
		c.stopClusters()
		for _, s := range c.sources {
			s.stop()
		}
	}()
	c.factory.Start(ctx)
	add := func(r Request) { c.queue.Add(r.owned()) }
	q := enqueuer{add: add, addLow: add, resync: c.opts.SyncPeriod}
	if c.opts.PriorityQueue {
		q.addLow = func(r Request) { c.queue.AddLow(r.owned()) }
	}
	for _, s := range c.sources {
		if err := s.start(q); err != nil {
			c.queue.ShutDown()
			if ctx.Err() != nil {
				// Stopped before it started: the informers ended with
				// ctx, so no handler could register. Not a failure.
				return nil
			}
			return fmt.Errorf("controller %s: %w", c.name, err)
		}
	}
	c.startClusters(q)
	if err := c.waitForSync(ctx); err != nil {
		c.queue.ShutDown()
		if ctx.Err() != nil {
			return nil // stopped before sync: not a failure
		}
		return err
	}

	if c.opts.Gate != nil {
		c.log.Info("synced; waiting for the gate")
		return c.opts.Gate(ctx, func(gctx, gabort context.Context) error {
			ab, stop := either(abort, gabort)
			defer stop()
			return c.work(gctx, ab)
		})
	}
	return c.work(ctx, abort)
}

// either returns a context done when a or b is (nil counts as never), and
// the function that releases it.
func either(a, b context.Context) (context.Context, func()) {
	switch {
	case a == nil:
		return b, func() {}
	case b == nil:
		return a, func() {}
	}
	ctx, cancel := context.WithCancel(a)
	stop := context.AfterFunc(b, cancel)
	return ctx, func() { stop(); cancel() }
}

// work runs the workers until ctx ends (then drains) or abort ends (then
// cancels the reconciles in flight), and shuts the queue down.
func (c *Controller) work(ctx, abort context.Context) error {
	// Reconciles get a context that outlives ctx by the drain, and ends
	// with abort.
	if abort == nil {
		abort = context.WithoutCancel(ctx)
	}
	rctx, cancel := context.WithCancel(abort)
	defer cancel()

	c.synced.Store(true)
	c.log.Info("starting workers", "workers", c.opts.MaxConcurrentReconciles)
	var wg sync.WaitGroup
	for range c.opts.MaxConcurrentReconciles {
		wg.Go(func() { c.worker(rctx) })
	}

	select {
	case <-ctx.Done():
	case <-rctx.Done():
	}
	c.synced.Store(false)
	c.log.Info("shutting down: draining reconciles in flight")
	if c.opts.DrainTimeout > 0 {
		dctx, dcancel := context.WithTimeout(rctx, c.opts.DrainTimeout)
		if err := c.queue.ShutDownAndWait(dctx); err != nil {
			c.log.Warn("drain ended with reconciles in flight; cancelling them", "err", err)
		}
		dcancel()
	} else {
		c.queue.ShutDown()
	}
	cancel()
	wg.Wait()
	c.log.Info("stopped")
	return nil
}

func (c *Controller) waitForSync(ctx context.Context) error {
	sctx, cancel := context.WithTimeout(ctx, c.opts.CacheSyncTimeout)
	defer cancel()
	var errs []error
	for _, s := range c.sources {
		if err := s.waitForSync(sctx); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s, err))
		}
	}
	if len(errs) > 0 {
		return &SyncError{Controller: c.name, Err: errors.Join(errs...)}
	}
	return nil
}

// worker takes Requests until the queue shuts down.
func (c *Controller) worker(ctx context.Context) {
	for {
		req, ok := c.queue.Get(ctx)
		if !ok {
			return
		}
		c.process(ctx, req)
	}
}

// process reconciles req and does the queue bookkeeping; it always calls
// Done exactly once.
func (c *Controller) process(ctx context.Context, req Request) {
	defer c.queue.Done(req)
	var clusterCtx context.Context // the cluster's, while it is engaged
	if req.Cluster != "" && c.opts.MultiCluster {
		if clusterCtx = c.clusterContext(req.Cluster); clusterCtx == nil {
			c.queue.Forget(req)
			c.log.Debug("request of a cluster not engaged dropped", "request", req)
			return
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(clusterCtx, cancel)()
	}
	if c.metrics != nil {
		c.metrics.active.Set(float64(c.active.Add(1)))
		defer func() { c.metrics.active.Set(float64(c.active.Add(-1))) }()
	}
	start := c.clock.Now()
	rctx, span := startReconcileSpan(withLogger(ctx, c.log, req), c.tracer, c.name, req)
	res, err := c.call(rctx, req)
	elapsed := c.clock.Now().Sub(start)

	var result string
	switch {
	case clusterCtx != nil && clusterCtx.Err() != nil:
		// The cluster was removed during the reconcile: nothing to retry.
		c.queue.Forget(req)
		endReconcileSpan(span, "cluster_removed", err)
		c.log.Info("reconcile ended by the removal of its cluster; not retrying", "request", req, "err", err)
		return
	case err != nil && errors.Is(err, ErrTerminal):
		result = "terminal_error"
		c.queue.Forget(req)
		c.log.Error("reconcile failed with a terminal error; not retrying", "request", req, "err", err)
	case err != nil:
		result = "error"
		c.queue.AddRateLimited(req)
		if ctx.Err() != nil {
			c.log.Info("reconcile interrupted by shutdown", "request", req, "err", err)
		} else {
			c.log.Error("reconcile failed; retrying", "request", req, "err", err, "requeues", c.queue.NumRequeues(req))
		}
	case res.RequeueAfter > 0:
		result = "requeue_after"
		c.queue.Forget(req)
		c.queue.AddAfter(req, res.RequeueAfter)
	case res.Requeue:
		result = "requeue"
		c.queue.AddRateLimited(req)
	default:
		result = "success"
		c.queue.Forget(req)
	}
	endReconcileSpan(span, result, err)
	if c.metrics != nil {
		c.metrics.observe(result, err, elapsed)
	}
}

// call runs the Reconciler, turning a panic into a *PanicError unless
// panics propagate.
func (c *Controller) call(ctx context.Context, req Request) (res Result, err error) {
	if !c.opts.PropagatePanics {
		defer func() {
			if v := recover(); v != nil {
				pe := &PanicError{Request: req, Value: v, Stack: debug.Stack()}
				c.log.Error("panic in Reconcile", "request", req, "panic", panicString(v), "stack", string(pe.Stack))
				if c.metrics != nil {
					c.metrics.panics.Inc()
				}
				res, err = Result{}, pe
			}
		}()
	}
	if d := c.opts.ReconcileTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, ErrReconcileTimeout)
		defer cancel()
	}
	return c.opts.Reconciler.Reconcile(ctx, req)
}

// SyncStates yields, for each source in the order of Options.Sources, the
// name of its informer and whether that informer has synced and, once
// Start has registered the source's handler, that handler has been given
// the initial objects. It is safe to
// call at any time, concurrently with Start; a manager serves it as
// readiness and as a metric. Two sources on one shared informer yield its
// name twice; a Channel source, which has no informer, yields nothing.
func (c *Controller) SyncStates() iter.Seq2[string, bool] {
	return func(yield func(string, bool) bool) {
		for _, s := range c.sources {
			name := s.informerName()
			if name == "" {
				continue
			}
			if !yield(name, s.hasSynced()) {
				return
			}
		}
	}
}
