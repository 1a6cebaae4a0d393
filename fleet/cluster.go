package fleet

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/rest"
)

// Options configure a Cluster. The zero value is useful.
type Options struct {
	// Client configures the cluster's client (custom resource registry,
	// Mapper, field manager).
	Client client.Options
	// Informers configure the cluster's informer factory. A nil Logger is
	// replaced by Options.Logger; OneInformerPerType is always set.
	Informers informer.FactoryOptions
	// Declarations fix the informer options of the types they name, for
	// every source and reader of the cluster (see informer.Declare): a
	// type's options are given here once, not at each use.
	Declarations []informer.Declaration
	// Clock times the late closes of idle connections after Stop; nil
	// means the wall clock.
	Clock clock.Clock
	// Logger receives the cluster's records (and its client's, when the
	// rest.Config names no logger), with a "cluster" attribute. Nil means
	// warnings and errors go to slog.Default() and the rest nowhere.
	Logger *slog.Logger
}

// Cluster is one Kubernetes cluster a program works with: a client and an
// informer factory on that client, with a lifecycle of its own. Start runs
// its informers, Stop ends them, frees the caches and closes the idle
// connections of its client; then every cache read fails with
// informer.ErrStopped. A Cluster is an informer.Host: read its cache with
// informer.NewReader[T](cluster, ...).
//
// Its client shares its connection pool with every client built from a
// rest.Config of equal transport settings (see rest.Client), so the
// typed, dynamic and metadata clients of one cluster use one pool.
//
// All methods are safe for concurrent use.
type Cluster struct {
	name    string
	log     *slog.Logger
	clock   clock.Clock
	client  *client.Client
	factory *informer.Factory

	mu      sync.Mutex
	started bool
	stopped bool
	cancel  context.CancelFunc
	done    chan struct{}
}

// New builds a Cluster named name from cfg: its client and its informer
// factory, with one informer per type (informer.FactoryOptions
// OneInformerPerType). Nothing runs until Start. The empty name is the
// host cluster's, the one a manager.Manager is built on. cfg is not
// retained. It returns an error wrapping ErrInvalid for a nil cfg, the
// rest client's *rest.ConfigError, or the factory's error for
// Options.Declarations that declare a type twice (informer.ErrDeclared).
func New(name string, cfg *rest.Config, opts Options) (*Cluster, error) {
	if cfg == nil {
		return nil, &Error{Cluster: name, Err: fmt.Errorf("%w: nil rest.Config", ErrInvalid)}
	}
	log := defaultlog.Or(opts.Logger)
	if name != "" {
		log = log.With("cluster", name)
	}
	c := *cfg
	if c.Logger == nil {
		c.Logger = log
	}
	rc, err := rest.NewClient(&c)
	if err != nil {
		return nil, err
	}
	cl := client.New(rc, opts.Client)
	fo := opts.Informers
	if fo.Logger == nil {
		fo.Logger = log
	}
	fo.OneInformerPerType = true
	f := informer.NewFactory(cl, fo)
	if err := f.Declare(opts.Declarations...); err != nil {
		return nil, &Error{Cluster: name, Err: err}
	}
	return &Cluster{
		name:    name,
		log:     log,
		clock:   clock.Or(opts.Clock),
		client:  cl,
		factory: f,
		done:    make(chan struct{}),
	}, nil
}

// Name returns the cluster's name ("" for a Manager's host cluster).
func (c *Cluster) Name() string { return c.name }

// Client returns the cluster's client. It keeps working after Stop (it
// holds no goroutine); only its idle connections are closed then.
func (c *Cluster) Client() *client.Client { return c.client }

// Factory returns the cluster's informer factory, which Start starts.
// Informers taken from it after Stop never start.
func (c *Cluster) Factory() *informer.Factory { return c.factory }

// Logger returns the cluster's logger (with its "cluster" attribute).
func (c *Cluster) Logger() *slog.Logger { return c.log }

// Start runs the cluster's informers, those made so far and later ones,
// until ctx is done or Stop is called. It does not block and does not wait
// for any cache to sync (see WaitForSync): a cluster that cannot be
// reached only keeps its own informers retrying. A second call does
// nothing; after Stop it returns an error wrapping ErrRemoved.
func (c *Cluster) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return c.removed()
	}
	if c.started {
		return nil
	}
	c.started = true
	ctx, c.cancel = context.WithCancel(ctx)
	c.factory.Start(ctx)
	return nil
}

// WaitForSync waits until every informer made so far from the cluster's
// factory has synced, or ctx ends; it returns nil or the informers'
// joined *informer.SyncError (see informer.Factory.WaitForSync).
func (c *Cluster) WaitForSync(ctx context.Context) error {
	return c.factory.WaitForSync(ctx)
}

// Stop ends the cluster: it stops its informers and waits for them to
// return, frees their caches (reads of the cluster's readers then fail
// with informer.ErrStopped; see informer.Factory.Close), and closes the idle connections of its client's pool, at once and again
// during the next seconds (a closed watch's stream leaves its connection
// a moment after the watch returns), so that no connection to the cluster
// stays open once no client uses it. Informers that
// other code still holds (a controller's sources) stop too, as their
// factory's context ends. Stop is idempotent; concurrent calls all return
// once it is done. It returns the factory's error (mutations of cached
// objects, when detection is on), or nil.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		<-c.done
		return nil
	}
	c.stopped = true
	cancel := c.cancel
	c.mu.Unlock()

	if cancel != nil {
		cancel()
	}
	c.factory.Close()
	var err error
	if cancel != nil {
		err = c.factory.Wait()
	}
	// The streams of the watches just closed leave their connections
	// a moment later: close the idle ones now and again shortly after.
	closeIdle := c.client.REST().CloseIdleConnections
	closeIdle()
	for _, d := range []time.Duration{100 * time.Millisecond, time.Second, 5 * time.Second} {
		c.clock.AfterFunc(d, closeIdle)
	}
	close(c.done)
	return err
}

// Done is closed once Stop has finished.
func (c *Cluster) Done() <-chan struct{} { return c.done }

func (c *Cluster) removed() error { return &Error{Cluster: c.name, Err: ErrRemoved} }
