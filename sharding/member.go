package sharding

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/metadata"
)

// MemberOptions configure NewMember. Ring, Identity and Namespace are
// required; every other field has a useful zero value.
type MemberOptions struct {
	// Ring names the ring (a DNS label, not "ring"): the shard label of the
	// objects is ShardLabel(Ring).
	Ring string
	// Identity names this replica (a DNS label, unique among the ring's
	// live replicas; a pod name is usual). It is the shard label's value on
	// the objects this replica owns.
	Identity string
	// Namespace holds the members' Leases (and the sharder's).
	Namespace string

	// LeaseDuration, RenewDeadline and RetryPeriod time the member's
	// Lease as for leaderelection.Config: the member renews every
	// RetryPeriod, stops acting RenewDeadline after its last successful
	// renewal was sent, and the sharder considers it gone LeaseDuration
	// after it last saw the Lease change. Zero means the leaderelection
	// defaults (15s, 10s, 2s).
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration

	// KeepLeaseOnStop leaves the Lease held when Run's context ends,
	// instead of releasing it: the sharder then moves the member's objects
	// only once the Lease has expired (LeaseDuration), and a replica
	// restarted with the same identity before that takes the Lease back
	// at once and keeps every object, so a rolling restart of replicas
	// with stable identities (a StatefulSet's) moves nothing. Leave it off
	// when identities change with each start: the objects of a replica
	// stopped for good would wait for the expiry instead of moving at
	// once.
	KeepLeaseOnStop bool

	// Leases reads and writes the member's Lease. Nil means the client's
	// (leaderelection.NewStore); a store of one's own (a wrapper that
	// injects faults, say) is the same extension point as
	// leaderelection.New's store.
	Leases leaderelection.LeaseStore
	// Clock is the time source; nil means the wall clock.
	Clock clock.Clock
	// Logger receives the member's records. Nil means warnings and errors
	// go to slog.Default() and the rest nowhere.
	Logger *slog.Logger
	// Registerer, if set, receives the member's metrics
	// (kubego_sharding_drain_acks_total).
	Registerer prometheus.Registerer
}

// Member is one replica of a sharded controller. It announces itself to
// the ring's Sharder through a Lease, tells its informers to select only
// its objects (Selector, Informer), and makes its reconcilers take part in
// handovers (Guard).
//
// Create one with NewMember and call Run once. Its methods are safe for
// concurrent use.
type Member struct {
	opts   MemberOptions
	store  leaderelection.LeaseStore
	meta   *metadata.Client
	log    *slog.Logger
	acks   prometheus.Counter // nil: no metrics
	ran    atomic.Bool
	active atomic.Bool
}

// NewMember returns a Member of ring opts.Ring that writes its Lease and
// acknowledges drains through c. It fails with a *ConfigError for unusable
// options, or with the registerer's error.
func NewMember(c *client.Client, opts MemberOptions) (*Member, error) {
	if err := validRing(opts.Ring); err != nil {
		return nil, err
	}
	if err := validIdentity(opts.Identity); err != nil {
		return nil, err
	}
	if opts.Namespace == "" {
		return nil, &ConfigError{Field: "Namespace", Reason: "required"}
	}
	if c == nil {
		return nil, &ConfigError{Field: "client", Reason: "required"}
	}
	opts.Clock = clock.Or(opts.Clock)
	store := opts.Leases
	if store == nil {
		store = leaderelection.NewStore(c)
	}
	m := &Member{
		opts:  opts,
		store: labelledStore{inner: store, ring: opts.Ring},
		meta:  metadata.New(c.REST(), metadata.Options{}),
		log:   defaultlog.Or(opts.Logger).With("ring", opts.Ring, "member", opts.Identity),
	}
	if opts.Registerer != nil {
		acks := prometheus.NewCounter(prometheus.CounterOpts{
			Name:        "kubego_sharding_drain_acks_total",
			Help:        "Objects this member stopped reconciling and handed back to the sharder.",
			ConstLabels: prometheus.Labels{"ring": opts.Ring, "member": opts.Identity},
		})
		if err := opts.Registerer.Register(acks); err != nil {
			return nil, err
		}
		m.acks = acks
	}
	return m, nil
}

// Identity returns the member's identity.
func (m *Member) Identity() string { return m.opts.Identity }

// Selector returns the label selector of the objects this member owns:
// ShardLabel(ring)=identity.
func (m *Member) Selector() string { return ShardLabel(m.opts.Ring) + "=" + m.opts.Identity }

// Informer returns base with the member's Selector added to its label
// selector, for the declaration of every sharded type
// (informer.Declare[T](m.Informer(base)), in manager.Options.Declarations
// or informer.Factory.Declare): the member then lists, watches and caches
// only its own objects, through every source and reader of the type.
func (m *Member) Informer(base informer.SharedOptions) informer.SharedOptions {
	sel := m.Selector()
	if s := strings.TrimSpace(base.LabelSelector); s != "" {
		sel = s + "," + sel
	}
	base.LabelSelector = sel
	return base
}

// Active reports whether the member currently holds its Lease, so that
// the sharder may assign it objects and it may reconcile them.
func (m *Member) Active() bool { return m.active.Load() }

// Run joins the ring and calls run while the member holds its Lease, until
// ctx ends or run fails.
//
// run gets two contexts, shaped for controller.Controller.StartAbortable:
// ctx is done when the member must stop (Run's context ended, or the
// Lease was lost); abort is done only when the Lease was lost, and then
// the member must stop acting at once, because the sharder gives its
// objects to others LeaseDuration after its last renewal. A Run context
// that ends is a graceful stop: run should let the reconciles in flight
// finish (ctx done, abort not), and once it returns the Lease is released
// so the sharder fences it and moves the member's objects at once (unless
// KeepLeaseOnStop).
//
// A member that loses its Lease (it could not renew it within
// RenewDeadline) leaves the ring, waits RetryPeriod and joins again: run
// is called anew once run of the lost term has returned, and must build
// its informers and controllers afresh (the objects it owns may have
// changed meanwhile). While the sharder holds the member's Lease
// (FenceHolder: the member was gone and its objects are being moved), the
// member waits, as a candidate of an election waits for a held Lease,
// until the sharder releases it. When run returns nil before ctx ends,
// the member leaves the ring and Run returns.
//
// Run returns nil when ctx ended or run returned nil, run's error if it
// failed, a *ConfigError for durations leaderelection refuses, and
// ErrRunning on a second call.
func (m *Member) Run(ctx context.Context, run func(ctx, abort context.Context) error) error {
	if !m.ran.CompareAndSwap(false, true) {
		return ErrRunning
	}
	for {
		lost, err := m.term(ctx, run)
		if err != nil || !lost || ctx.Err() != nil {
			return err
		}
		m.log.Warn("lost the Lease; joining the ring again")
		retry := m.opts.RetryPeriod
		if retry <= 0 {
			retry = leaderelection.DefaultRetryPeriod
		}
		if clock.Sleep(ctx, m.opts.Clock, retry) != nil {
			return nil
		}
	}
}

// Gate is Run for one term, shaped for controller.Options.Gate, so that a
// sharded controller lives in a manager.Manager like any other (its
// probes, metrics, recorder and readers are the Manager's): it joins the
// ring, calls run while the member holds its Lease, and returns when run
// returns or ctx ends (nil), or when the Lease is lost (an error wrapping
// leaderelection.ErrLeaseLost, which ends the Manager as a lost leadership
// does: the process should restart and join again). Like Run, it may be
// called once.
//
//	mgr.Declare(informer.Declare[*Foo](m.Informer(informer.SharedOptions{})))
//	mgr.NewController(controller.Options{Gate: m.Gate, SkipLeaderElection: true, ...})
func (m *Member) Gate(ctx context.Context, run func(ctx, abort context.Context) error) error {
	if !m.ran.CompareAndSwap(false, true) {
		return ErrRunning
	}
	lost, err := m.term(ctx, run)
	if lost {
		return fmt.Errorf("sharding: member %s of ring %s: %w", m.opts.Identity, m.opts.Ring, leaderelection.ErrLeaseLost)
	}
	return err
}

// term holds the Lease once: it returns lost true when the Lease was lost
// (run's error, if any, is then dropped: it was stopped for the loss).
func (m *Member) term(ctx context.Context, run func(ctx, abort context.Context) error) (lost bool, err error) {
	parent, stop := context.WithCancel(ctx)
	defer stop()
	var (
		mu     sync.Mutex
		runErr error
	)
	e, err := leaderelection.New(m.store, leaderelection.Config{
		Lock:            types.NamespacedName{Namespace: m.opts.Namespace, Name: leaseName(m.opts.Ring, m.opts.Identity)},
		Identity:        m.opts.Identity,
		LeaseDuration:   m.opts.LeaseDuration,
		RenewDeadline:   m.opts.RenewDeadline,
		RetryPeriod:     m.opts.RetryPeriod,
		ReleaseOnCancel: !m.opts.KeepLeaseOnStop,
		Clock:           m.opts.Clock,
		Logger:          m.log,
		Callbacks: leaderelection.Callbacks{
			OnStartedLeading: func(term context.Context) {
				abort, cancelAbort := context.WithCancel(context.Background())
				defer cancelAbort()
				stopAbort := context.AfterFunc(term, func() {
					if parent.Err() == nil {
						cancelAbort() // the Lease was lost, not a graceful stop
					}
				})
				defer stopAbort()
				m.active.Store(true)
				m.log.Info("joined the ring")
				err := run(term, abort)
				m.active.Store(false)
				m.log.Info("left the ring", "error", err)
				mu.Lock()
				runErr = err
				mu.Unlock()
				if term.Err() == nil {
					stop() // run ended by itself: leave the ring, release the Lease
				}
			},
		},
	})
	if err != nil {
		var ce *leaderelection.ConfigError
		if errors.As(err, &ce) {
			return false, &ConfigError{Field: ce.Field, Reason: ce.Reason}
		}
		return false, err
	}
	err = e.Run(parent)
	if errors.Is(err, leaderelection.ErrLeaseLost) && ctx.Err() == nil {
		return true, nil
	}
	mu.Lock()
	defer mu.Unlock()
	if runErr != nil {
		return false, runErr
	}
	return false, err
}
