package sharding

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/internal/defaultlog"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/metadata"
)

// Resource is one sharded resource.
type Resource struct {
	// Resource is the resource's group, version and resource (required).
	Resource schema.GroupVersionResource
	// Kind is its group and kind, which ObjectKey and OwnerKey hash
	// (required).
	Kind schema.GroupKind
	// Namespace limits sharding to one namespace; "" means all.
	Namespace string
	// Key chooses what the objects are hashed by. Nil means ObjectKey.
	// It sees the objects as the sharder caches them: name, namespace,
	// resourceVersion, labels and owner references, nothing else.
	Key KeyFunc
}

// Defaults of SharderOptions' zero fields.
const (
	// DefaultWorkers is SharderOptions.Workers when zero.
	DefaultWorkers = 32
	// DefaultSettle is SharderOptions.Settle when zero.
	DefaultSettle = 15 * time.Second
	// DefaultLeaseRetention is SharderOptions.LeaseRetention when zero.
	DefaultLeaseRetention = time.Minute
)

// SharderOptions configure NewSharder. Ring, Namespace, Identity and at
// least one Resource are required; every other field has a useful zero
// value.
type SharderOptions struct {
	// Ring names the ring, as the members' MemberOptions.Ring.
	Ring string
	// Namespace holds the members' Leases and the sharder's own.
	Namespace string
	// Identity names this sharder candidate in the election (unique per
	// process; the member identity of the same replica is usual).
	Identity string
	// Resources are the sharded resources.
	Resources []Resource

	// LeaseDuration, RenewDeadline and RetryPeriod time the sharders'
	// election, as in leaderelection.Config. Zero means its defaults.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Workers is the number of concurrent label writes per resource. Zero
	// means DefaultWorkers.
	Workers int
	// Settle is how long the leader lets a member be absent before it
	// fences the member and moves its objects, when the member's Lease is
	// missing or was found released (not seen being released) at the start
	// of a term: counted from when the leader first saw the absence, or
	// when the ring last went from empty to non-empty if later. Replicas
	// starting together (a new deployment, a rolling restart, a failover
	// of the sharder) thus join and keep the objects already labelled for
	// them instead of being fenced on a partial view. An expiry, or a
	// release the leader saw happen, is fenced at once. Zero means
	// DefaultSettle; negative means no wait.
	Settle time.Duration
	// LeaseRetention is how long the Lease of a gone member is kept once
	// no object carries its label (after its expiry, release, or the
	// release of its fence) before the leader deletes it, conditional on
	// the resourceVersion it saw. The deletion goes through the client,
	// not Leases. Zero means DefaultLeaseRetention; negative means never.
	LeaseRetention time.Duration
	// RingOptions shape the hash ring; every sharder of a ring must use
	// the same.
	RingOptions RingOptions

	// Leases reads and writes Leases: the election's, and the members'
	// (to confirm an expiry, and to fence and release gone members). Nil
	// means the client's.
	Leases leaderelection.LeaseStore
	// Clock is the time source; nil means the wall clock.
	Clock clock.Clock
	// Logger receives the sharder's records. Nil means warnings and
	// errors go to slog.Default() and the rest nowhere.
	Logger *slog.Logger
	// Registerer, if set, receives the sharder's metrics:
	// kubego_sharding_objects{ring,shard}, kubego_sharding_members,
	// kubego_sharding_assignments_total,
	// kubego_sharding_reassignments_total{cause} and
	// kubego_sharding_drain_duration_seconds.
	Registerer prometheus.Registerer
}

// Sharder assigns the objects of a ring to its members. Every replica may
// run one; they elect a leader through the Lease "sharder.<ring>", and
// only the leader acts: it watches the members' Leases and the metadata of
// the sharded objects, labels each object with its member
// (ShardLabel(ring)), and when the members change moves the objects whose
// member changed: from a live member by drain and acknowledgement (see
// Member.Guard), from a gone one at once once it is fenced (a member
// absent since the term began, after Settle). It deletes the Leases of
// gone members that own no objects after LeaseRetention.
//
// Create one with NewSharder and call Run once. Its methods are safe for
// concurrent use.
type Sharder struct {
	opts    SharderOptions
	client  *client.Client
	meta    *metadata.Client
	store   leaderelection.LeaseStore
	log     *slog.Logger
	metrics *sharderMetrics
	ran     atomic.Bool
	leading atomic.Bool
	term    atomic.Pointer[term]
}

// NewSharder returns a Sharder for opts.Ring that reads and labels objects
// through c. It fails with a *ConfigError for unusable options, or with
// the registerer's error.
func NewSharder(c *client.Client, opts SharderOptions) (*Sharder, error) {
	if err := validRing(opts.Ring); err != nil {
		return nil, err
	}
	switch {
	case c == nil:
		return nil, &ConfigError{Field: "client", Reason: "required"}
	case opts.Namespace == "":
		return nil, &ConfigError{Field: "Namespace", Reason: "required"}
	case opts.Identity == "":
		return nil, &ConfigError{Field: "Identity", Reason: "required"}
	case len(opts.Resources) == 0:
		return nil, &ConfigError{Field: "Resources", Reason: "at least one required"}
	}
	opts.Resources = append([]Resource(nil), opts.Resources...)
	seen := map[schema.GroupVersionResource]bool{}
	for i, r := range opts.Resources {
		if r.Resource.Resource == "" || r.Kind.Kind == "" {
			return nil, &ConfigError{Field: "Resources", Reason: "each needs Resource and Kind"}
		}
		if seen[r.Resource] {
			return nil, &ConfigError{Field: "Resources", Reason: "resource " + r.Resource.String() + " given twice"}
		}
		seen[r.Resource] = true
		if r.Key == nil {
			opts.Resources[i].Key = ObjectKey
		}
	}
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	switch {
	case opts.Settle == 0:
		opts.Settle = DefaultSettle
	case opts.Settle < 0:
		opts.Settle = 0
	}
	if opts.LeaseRetention == 0 {
		opts.LeaseRetention = DefaultLeaseRetention
	}
	opts.Clock = clock.Or(opts.Clock)
	store := opts.Leases
	if store == nil {
		store = leaderelection.NewStore(c)
	}
	s := &Sharder{
		opts:   opts,
		client: c,
		meta:   metadata.New(c.REST(), metadata.Options{}),
		store:  store,
		log:    defaultlog.Or(opts.Logger).With("ring", opts.Ring, "sharder", opts.Identity),
	}
	m, err := newSharderMetrics(opts.Registerer, opts.Ring, newObjectsCollector(s))
	if err != nil {
		return nil, err
	}
	s.metrics = m
	return s, nil
}

// IsLeader reports whether this sharder currently leads (and so assigns).
func (s *Sharder) IsLeader() bool { return s.leading.Load() }

// Members returns the live members as the leading sharder sees them, or
// nil when this one does not lead.
func (s *Sharder) Members() []string {
	t := s.term.Load()
	if t == nil {
		return nil
	}
	return t.members.current().ring.Members()
}

// Counts returns the number of sharded objects per shard label value (""
// for unassigned ones) in the leading sharder's caches, or nil when this
// one does not lead.
func (s *Sharder) Counts() map[string]int {
	t := s.term.Load()
	if t == nil {
		return nil
	}
	label := ShardLabel(s.opts.Ring)
	out := map[string]int{}
	for _, r := range t.resources {
		for o := range r.inf.Lister().All(nil) {
			out[o.GetLabels()[label]]++
		}
	}
	return out
}

// Run campaigns for the sharder's Lease and assigns while it leads, until
// ctx ends. A term that ends (leadership lost, or an error such as a cache
// that does not sync, logged at error level) is followed by a new
// campaign after RetryPeriod: a sharder keeps nothing between terms, so a
// new term starts from the cluster's state. Run returns nil when ctx
// ended, a *ConfigError for durations leaderelection refuses, and
// ErrRunning on a second call.
func (s *Sharder) Run(ctx context.Context) error {
	if !s.ran.CompareAndSwap(false, true) {
		return ErrRunning
	}
	retry := s.opts.RetryPeriod
	if retry <= 0 {
		retry = leaderelection.DefaultRetryPeriod
	}
	for {
		err := s.campaign(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, ErrInvalidOptions) {
			return err
		}
		s.log.Warn("sharder term ended; campaigning again", "error", err)
		if clock.Sleep(ctx, s.opts.Clock, retry) != nil {
			return nil
		}
	}
}

// campaign runs one election until it is lost, a term fails, or ctx ends.
func (s *Sharder) campaign(ctx context.Context) error {
	var (
		mu      sync.Mutex
		termErr error
	)
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	e, err := leaderelection.New(s.store, leaderelection.Config{
		Lock:            types.NamespacedName{Namespace: s.opts.Namespace, Name: "sharder." + s.opts.Ring},
		Identity:        s.opts.Identity,
		LeaseDuration:   s.opts.LeaseDuration,
		RenewDeadline:   s.opts.RenewDeadline,
		RetryPeriod:     s.opts.RetryPeriod,
		ReleaseOnCancel: true,
		Clock:           s.opts.Clock,
		Logger:          s.log,
		Callbacks: leaderelection.Callbacks{
			OnStartedLeading: func(ctx context.Context) {
				s.leading.Store(true)
				defer s.leading.Store(false)
				if err := s.lead(ctx); err != nil && ctx.Err() == nil {
					s.log.Error("sharder term failed", "error", err)
					mu.Lock()
					termErr = err
					mu.Unlock()
					stop()
				}
			},
		},
	})
	if err != nil {
		var ce *leaderelection.ConfigError
		if errors.As(err, &ce) {
			return &ConfigError{Field: ce.Field, Reason: ce.Reason}
		}
		return err
	}
	err = e.Run(runCtx)
	mu.Lock()
	defer mu.Unlock()
	if termErr != nil {
		return termErr
	}
	return err
}

// drains remembers when each drain began, for the duration metric.
type drains struct {
	mu    sync.Mutex
	start map[drainKey]time.Time
}

type drainKey struct {
	resource int
	key      informer.Key
}

func (d *drains) begin(k drainKey, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.start[k]; !ok {
		d.start[k] = at
	}
}

// end forgets k and returns when its drain began.
func (d *drains) end(k drainKey) (time.Time, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	at, ok := d.start[k]
	delete(d.start, k)
	return at, ok
}

// snapshotLeases is a lister of the term's Lease informer.
func snapshotLeases(inf *informer.Informer[*coordinationv1.Lease]) func() []*coordinationv1.Lease {
	return func() []*coordinationv1.Lease { return inf.Lister().List(nil) }
}
