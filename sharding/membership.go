package sharding

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/leaderelection"
)

// view is one state of the ring: its members, all of them alive.
type view struct {
	ring *Ring
}

// alive reports whether member may still act: only live members are on
// the ring.
func (v *view) alive(member string) bool { return v.ring.Has(member) }

// observation is what the sharder knows of one member's Lease.
type observation struct {
	rv       string
	holder   string
	duration time.Duration
	seen     time.Time // when this resourceVersion was first observed, on the sharder's clock
}

// membership turns the members' Leases into views. A member is alive while
// its Lease names it as holder and has changed within its duration, as
// measured on the sharder's own clock from when the sharder observed the
// change: lease timestamps are never compared with the local clock. Before
// a member is declared gone for an expired Lease, the Lease is read again
// (a consistent GET), so a watch that lags cannot make a live member look
// dead.
type membership struct {
	ring      string
	ns        string
	ringOpts  RingOptions
	clock     clock.Clock
	store     leaderelection.LeaseStore
	log       *slog.Logger
	list      func() []*coordinationv1.Lease
	onChange  func(*view)
	mu        sync.Mutex
	observed  map[string]*observation // by member identity
	cur       *view
	timer     clock.Timer
	timerAt   time.Time
	recompute chan struct{}
}

func newMembership(ring, ns string, ringOpts RingOptions, c clock.Clock, store leaderelection.LeaseStore, log *slog.Logger,
	list func() []*coordinationv1.Lease, onChange func(*view)) *membership {
	return &membership{
		ring: ring, ns: ns, ringOpts: ringOpts, clock: c, store: store, log: log,
		list: list, onChange: onChange,
		observed:  map[string]*observation{},
		cur:       &view{ring: NewRing(nil, ringOpts)},
		recompute: make(chan struct{}, 1),
	}
}

// poke asks for a recomputation; it never blocks.
func (ms *membership) poke() {
	select {
	case ms.recompute <- struct{}{}:
	default:
	}
}

// current returns the latest view.
func (ms *membership) current() *view {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return ms.cur
}

// run recomputes the view on each poke until ctx ends.
func (ms *membership) run(ctx context.Context) {
	defer func() {
		ms.mu.Lock()
		if ms.timer != nil {
			ms.timer.Stop()
		}
		ms.mu.Unlock()
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ms.recompute:
			ms.update(ctx)
		}
	}
}

// identityOf returns the member a Lease of the ring belongs to.
func (ms *membership) identityOf(l *coordinationv1.Lease) (string, bool) {
	return strings.CutPrefix(l.Name, ms.ring+"-")
}

// update observes the Leases, confirms expiries with a GET, publishes a
// changed view and arms the timer for the next expiry.
func (ms *membership) update(ctx context.Context) {
	now := ms.clock.Now()
	seen := map[string]bool{}
	for _, l := range ms.list() {
		id, ok := ms.identityOf(l)
		if !ok {
			continue
		}
		seen[id] = true
		ms.observe(id, l, now)
	}
	for id := range ms.observed {
		if !seen[id] {
			delete(ms.observed, id)
		}
	}
	// Confirm each expiry with a fresh read before acting on it.
	for id, o := range ms.observed {
		if !o.held(id) || now.Before(o.seen.Add(o.duration)) {
			continue
		}
		l, err := ms.store.Get(ctx, types.NamespacedName{Namespace: ms.ns, Name: leaseName(ms.ring, id)})
		switch {
		case apierrors.IsNotFound(err):
			delete(ms.observed, id)
		case err != nil:
			// Unknown: keep the member alive and look again soon.
			ms.log.Warn("reading a member's Lease failed; keeping it on the ring", "member", id, "error", err)
			o.seen = now.Add(-o.duration).Add(time.Second)
		default:
			ms.observe(id, l, ms.clock.Now())
		}
	}
	var live []string
	next := time.Time{}
	for id, o := range ms.observed {
		if !o.held(id) {
			continue
		}
		exp := o.seen.Add(o.duration)
		if !now.Before(exp) {
			continue
		}
		live = append(live, id)
		if next.IsZero() || exp.Before(next) {
			next = exp
		}
	}
	slices.Sort(live)
	ms.mu.Lock()
	changed := !slices.Equal(live, ms.cur.ring.Members())
	if changed {
		ms.cur = &view{ring: NewRing(live, ms.ringOpts)}
	}
	v := ms.cur
	ms.arm(next, now)
	ms.mu.Unlock()
	if changed {
		ms.log.Info("ring changed", "members", live)
		ms.onChange(v)
	}
}

// observe records Lease l of member id as seen at now, restarting its
// expiry only when its record changed.
func (ms *membership) observe(id string, l *coordinationv1.Lease, now time.Time) {
	holder := ""
	if l.Spec.HolderIdentity != nil {
		holder = *l.Spec.HolderIdentity
	}
	d := leaderelection.DefaultLeaseDuration
	if l.Spec.LeaseDurationSeconds != nil && *l.Spec.LeaseDurationSeconds > 0 {
		d = time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
	}
	o := ms.observed[id]
	if o == nil || o.rv != l.ResourceVersion {
		ms.observed[id] = &observation{rv: l.ResourceVersion, holder: holder, duration: d, seen: now}
	}
}

// held reports whether the Lease names its member as holder (a released
// Lease has none).
func (o *observation) held(id string) bool { return o.holder == id }

// arm sets the timer to recompute at next (zero: no timer). Called with
// mu held.
func (ms *membership) arm(next, now time.Time) {
	if next.IsZero() {
		if ms.timer != nil {
			ms.timer.Stop()
		}
		ms.timerAt = time.Time{}
		return
	}
	if next.Equal(ms.timerAt) {
		return
	}
	ms.timerAt = next
	d := next.Sub(now)
	if ms.timer == nil {
		ms.timer = ms.clock.AfterFunc(d, ms.poke)
		return
	}
	ms.timer.Stop()
	ms.timer.Reset(d)
}
