package sharding

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/leaderelection"
)

// FenceHolder is the holderIdentity the sharder writes into the Lease of a
// member that is gone while objects still carry its label. It is no DNS
// label, so never a member's identity: while the sharder holds the Lease
// the member cannot join again (its election waits for the Lease to
// expire, and the sharder renews it), so its objects can be moved without
// asking it. Once no object carries its label the sharder releases the
// Lease.
const FenceHolder = "sharding.kubego.io/sharder"

// memberState is what the sharder may do with a member's objects.
type memberState int

const (
	// unknown: neither alive nor fenced (yet): leave its objects alone.
	unknown memberState = iota
	// alive: on the ring; its objects move only by drain.
	alive
	// fenced: gone, and held out of the ring by the sharder; its objects
	// move at once.
	fenced
)

// view is one state of the ring: its live members, and the gone members
// the sharder holds out.
type view struct {
	ring   *Ring
	fenced map[string]bool
}

// state returns what member is in this view. A label value that cannot be
// a member's identity counts as fenced.
func (v *view) state(member string) memberState {
	switch {
	case v.ring.Has(member):
		return alive
	case v.fenced[member], validIdentity(member) != nil:
		return fenced
	default:
		return unknown
	}
}

// observation is what the sharder knows of one member's Lease.
type observation struct {
	rv       string
	holder   string
	duration time.Duration
	seen     time.Time // when this resourceVersion was first observed, on the sharder's clock
	// older are resourceVersions this one superseded: the watch's view,
	// behind the sharder's own writes and reads, may still show them, and
	// must not bring them back.
	older []string
	// unlisted: learnt from a write or read, not yet from the watch; kept
	// when the watch's view lacks the Lease.
	unlisted bool
	// held: a version naming the member as holder was observed during this
	// term, so a release since was seen happen (the member left) rather
	// than found at the term's start.
	held bool
}

// maxOlder bounds observation.older.
const maxOlder = 8

// membership turns the members' Leases into views. A member is alive while
// its Lease names it as holder and has changed within its duration, as
// measured on the sharder's own clock from when the sharder observed the
// change: lease timestamps are never compared with the local clock.
//
// A member whose Lease expired or was released, or which has no Lease,
// while objects still carry its label, is fenced: the sharder writes
// FenceHolder into its Lease (an update conditional on the resourceVersion
// it last read, so a member that renewed meanwhile stays alive) and
// renews it until no object carries the member's label, then releases
// it. Only a fenced member's objects move without a drain, so a member
// that comes back (a restart with the same identity) cannot start on
// objects that are being moved away from it.
//
// Membership settles before anyone is fenced for being absent: a member
// whose Lease is missing, or was released before the sharder saw it held
// during this term, is fenced only once it has been so for settle, counted
// from when the sharder first saw it so or, if later, from when the ring
// last went from empty to non-empty. At a sharder's start (a new
// deployment, a rolling restart, a failover) the replicas that are still
// starting therefore join and keep their objects instead of being fenced
// on a partial view. A release seen happen during the term (the member
// held its Lease, then gave it up) and an expiry are fenced at once.
//
// A gone member's Lease that no object needs any more (not alive, not
// fenced, no object labelled for the member) is deleted once it has been
// gone for retention (negative: never), conditional on the resourceVersion
// observed, so a member that came back meanwhile keeps it.
type membership struct {
	membershipConfig
	mu         sync.Mutex
	observed   map[string]*observation // by member identity
	missing    map[string]time.Time    // members with objects but no Lease: since when
	aliveSince time.Time               // when the ring last became non-empty; zero while empty
	cur        *view
	timer      clock.Timer
	timerAt    time.Time
	recompute  chan struct{}
}

// membershipConfig is what a membership is made of.
type membershipConfig struct {
	ring     string
	ns       string
	ringOpts RingOptions
	clock    clock.Clock
	store    leaderelection.LeaseStore
	// del deletes member id's Lease if it is still at resourceVersion rv.
	del      func(ctx context.Context, id, rv string) error
	log      *slog.Logger
	list     func() []*coordinationv1.Lease
	owned    func(id string) int // objects labelled for id
	labelled func() []string     // the shard label values in use
	onChange func(*view)
	// settle is how long an absent member may keep its objects unfenced;
	// retention how long a gone member's unneeded Lease is kept (<0:
	// always).
	settle, retention time.Duration
}

func newMembership(cfg membershipConfig) *membership {
	return &membership{
		membershipConfig: cfg,
		observed:         map[string]*observation{},
		missing:          map[string]time.Time{},
		cur:              &view{ring: NewRing(nil, cfg.ringOpts), fenced: map[string]bool{}},
		recompute:        make(chan struct{}, 1),
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

// update observes the Leases, fences gone members that still own objects
// (absent ones once membership settled), releases fenced ones that own
// none, deletes the Leases no longer needed, publishes a changed view and
// arms the timer for the next expiry, renewal or deadline.
func (ms *membership) update(ctx context.Context) {
	now := ms.clock.Now()
	seen := map[string]bool{}
	for _, l := range ms.list() {
		id, ok := ms.identityOf(l)
		if !ok {
			continue
		}
		seen[id] = true
		ms.observeListed(id, l, now)
	}
	for id, o := range ms.observed {
		if !seen[id] && !o.unlisted {
			delete(ms.observed, id)
		}
	}
	// A fence is kept only while there is a live member to move the
	// objects to; on an empty ring it would keep the members out forever.
	anyAlive := false
	for id, o := range ms.observed {
		if o.alive(id, now) {
			anyAlive = true
		}
	}
	switch {
	case !anyAlive:
		ms.aliveSince = time.Time{}
	case ms.aliveSince.IsZero():
		ms.aliveSince = now
	}
	for id, o := range ms.observed {
		switch {
		case o.alive(id, now):
		case o.holder == FenceHolder && (!anyAlive || ms.owned(id) == 0):
			ms.write(ctx, id, "")
		case o.holder == FenceHolder && !now.Before(o.seen.Add(o.duration/3)):
			ms.write(ctx, id, FenceHolder) // renew the fence
		case o.holder == FenceHolder:
		case ms.owned(id) > 0:
			if anyAlive && !now.Before(ms.fenceAt(id, o)) {
				ms.write(ctx, id, FenceHolder) // gone: fence
			}
		case ms.retention >= 0 && !now.Before(o.goneAt(id).Add(ms.retention)):
			ms.remove(ctx, id, o.rv)
		}
	}
	// Objects labelled for a member that has no Lease at all: once it has
	// been missing for settle, create its Lease, fenced.
	inUse := map[string]bool{}
	for _, id := range ms.labelled() {
		if _, known := ms.observed[id]; known || id == "" || validIdentity(id) != nil {
			continue
		}
		inUse[id] = true
		if _, ok := ms.missing[id]; !ok {
			ms.missing[id] = now
		}
		if anyAlive && !now.Before(ms.settled(ms.missing[id])) {
			ms.create(ctx, id)
		}
	}
	for id := range ms.missing {
		if !inUse[id] {
			delete(ms.missing, id)
		}
	}

	now = ms.clock.Now()
	var live []string
	fencedSet := map[string]bool{}
	next := time.Time{}
	soonest := func(t time.Time) {
		if !t.After(now) {
			t = now.Add(time.Second) // due but not done (a write failed): try again soon
		}
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	for id, o := range ms.observed {
		switch {
		case o.alive(id, now):
			live = append(live, id)
			soonest(o.expiry())
		case o.holder == FenceHolder:
			fencedSet[id] = true
			soonest(o.seen.Add(o.duration / 3))
		case ms.owned(id) > 0:
			if anyAlive {
				soonest(ms.fenceAt(id, o))
			}
		case ms.retention >= 0:
			soonest(o.goneAt(id).Add(ms.retention))
		}
	}
	if anyAlive {
		for id := range ms.missing {
			if _, known := ms.observed[id]; !known {
				soonest(ms.settled(ms.missing[id]))
			}
		}
	}
	slices.Sort(live)
	ms.mu.Lock()
	changed := !slices.Equal(live, ms.cur.ring.Members()) || !maps.Equal(fencedSet, ms.cur.fenced)
	if changed {
		ms.cur = &view{ring: NewRing(live, ms.ringOpts), fenced: fencedSet}
	}
	v := ms.cur
	ms.arm(next, now)
	ms.mu.Unlock()
	if changed {
		ms.log.Info("ring changed", "members", live, "fenced", slices.Sorted(maps.Keys(fencedSet)))
		ms.onChange(v)
	}
}

// settled returns when an absence first seen at since has lasted settle,
// counting no earlier than from when the ring last became non-empty.
func (ms *membership) settled(since time.Time) time.Time {
	if since.Before(ms.aliveSince) {
		since = ms.aliveSince
	}
	return since.Add(ms.settle)
}

// fenceAt returns when gone member id, whose Lease is o and who still owns
// objects, may be fenced: at once after an expiry or a release seen
// happen, after settle for a Lease found released.
func (ms *membership) fenceAt(id string, o *observation) time.Time {
	switch {
	case o.holder == id:
		return o.expiry()
	case o.held:
		return o.seen
	default:
		return ms.settled(o.seen)
	}
}

// remove deletes member id's Lease if it is still at resourceVersion rv.
func (ms *membership) remove(ctx context.Context, id, rv string) {
	err := ms.del(ctx, id, rv)
	switch {
	case err == nil, apierrors.IsNotFound(err):
		ms.log.Info("deleted a gone member's Lease: it owns no objects", "member", id)
		delete(ms.observed, id)
	case apierrors.IsConflict(err):
		// It changed (the member came back); its watch event pokes.
	default:
		ms.log.Warn("deleting a gone member's Lease failed", "member", id, "error", err)
		ms.retrySoon(id)
	}
}

// write sets the holder of member id's Lease to holder (FenceHolder to
// fence or renew the fence, "" to release it), if the Lease is still the
// one observed; the answer, or a fresh read after a conflict, is observed.
func (ms *membership) write(ctx context.Context, id, holder string) {
	key := types.NamespacedName{Namespace: ms.ns, Name: leaseName(ms.ring, id)}
	l, err := ms.store.Get(ctx, key)
	if err != nil {
		if apierrors.IsNotFound(err) {
			delete(ms.observed, id)
			return
		}
		ms.log.Warn("reading a member's Lease failed", "member", id, "error", err)
		ms.retrySoon(id)
		return
	}
	o := ms.observed[id]
	if o == nil || l.ResourceVersion != o.rv {
		ms.observe(id, l, ms.clock.Now()) // it changed: decide again from what it is now
		return
	}
	l = l.DeepCopy()
	now := metav1.NewMicroTime(ms.clock.Now())
	if holder == "" {
		l.Spec.HolderIdentity = nil
	} else {
		h := holder
		l.Spec.HolderIdentity = &h
		if o.holder != FenceHolder {
			l.Spec.AcquireTime = &now
		}
	}
	l.Spec.RenewTime = &now
	got, err := ms.store.Update(ctx, l)
	switch {
	case err == nil:
		if holder == FenceHolder && o.holder != FenceHolder {
			ms.log.Info("fenced a gone member until its objects have moved", "member", id)
		}
		if holder == "" {
			ms.log.Info("released a gone member's Lease: it owns no objects", "member", id)
		}
		ms.observe(id, got, ms.clock.Now())
	case apierrors.IsConflict(err):
		// The member (or another sharder) wrote first; read it again.
		if l, err := ms.store.Get(ctx, key); err == nil {
			ms.observe(id, l, ms.clock.Now())
		}
	default:
		ms.log.Warn("writing a member's Lease failed", "member", id, "error", err)
		ms.retrySoon(id)
	}
}

// create makes a fenced Lease for member id, which has objects but no
// Lease. A member that created its own first wins (AlreadyExists).
func (ms *membership) create(ctx context.Context, id string) {
	now := metav1.NewMicroTime(ms.clock.Now())
	holder := FenceHolder
	d := int32(leaderelection.DefaultLeaseDuration / time.Second)
	l := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: ms.ns, Name: leaseName(ms.ring, id), Labels: map[string]string{RingLabel: ms.ring}},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &d, AcquireTime: &now, RenewTime: &now},
	}
	got, err := ms.store.Create(ctx, l)
	switch {
	case err == nil:
		ms.log.Info("fenced a member without a Lease until its objects have moved", "member", id)
		ms.observe(id, got, ms.clock.Now())
	case apierrors.IsAlreadyExists(err):
		// Its watch event is on the way, and pokes.
	default:
		ms.log.Warn("creating a fenced Lease failed", "member", id, "error", err)
	}
}

// retrySoon makes the next look at member id come within a second.
func (ms *membership) retrySoon(id string) {
	if o := ms.observed[id]; o != nil {
		o.seen = ms.clock.Now().Add(time.Second - o.duration)
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
	if o != nil && o.rv == l.ResourceVersion {
		return
	}
	next := &observation{rv: l.ResourceVersion, holder: holder, duration: d, seen: now, unlisted: true, held: holder == id}
	if o != nil {
		next.held = next.held || o.held
		next.older = append(next.older, o.older...)
		next.older = append(next.older, o.rv)
		if len(next.older) > maxOlder {
			next.older = next.older[len(next.older)-maxOlder:]
		}
	}
	ms.observed[id] = next
}

// observeListed is observe for a Lease from the watch's view, which may
// lag behind what the sharder wrote or read: a version already superseded
// is ignored.
func (ms *membership) observeListed(id string, l *coordinationv1.Lease, now time.Time) {
	if o := ms.observed[id]; o != nil && slices.Contains(o.older, l.ResourceVersion) {
		return
	}
	ms.observe(id, l, now)
	ms.observed[id].unlisted = false
}

// expiry is when the Lease expires unless it changes again.
func (o *observation) expiry() time.Time { return o.seen.Add(o.duration) }

// alive reports whether the Lease keeps member id on the ring at now.
func (o *observation) alive(id string, now time.Time) bool {
	return o.holder == id && now.Before(o.expiry())
}

// goneAt returns when member id, not alive, left: its Lease's expiry, or
// when its last change (a release, a fence's release) was seen.
func (o *observation) goneAt(id string) time.Time {
	if o.holder == id {
		return o.expiry()
	}
	return o.seen
}

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
