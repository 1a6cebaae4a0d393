package sharding

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/clock"
)

var leaseResource = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}

// leases is an in-memory LeaseStore whose list (the watch's view) can lag
// behind its Get (a consistent read).
type leases struct {
	mu      sync.Mutex
	rv      int
	server  map[string]*coordinationv1.Lease // by member identity
	cache   map[string]*coordinationv1.Lease
	holders map[string][]string // every holder each member's Lease had, in order
}

func newLeases() *leases {
	return &leases{server: map[string]*coordinationv1.Lease{}, cache: map[string]*coordinationv1.Lease{}, holders: map[string][]string{}}
}

// stored records x as member id's Lease; called with mu held.
func (l *leases) stored(id string, x *coordinationv1.Lease) {
	h := ""
	if x.Spec.HolderIdentity != nil {
		h = *x.Spec.HolderIdentity
	}
	l.holders[id] = append(l.holders[id], h)
}

// everFenced reports whether member id's Lease was ever held by the fence.
func (l *leases) everFenced(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Contains(l.holders[id], FenceHolder)
}

// exists reports whether member id has a Lease.
func (l *leases) exists(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.server[id] != nil
}

// del deletes member id's Lease if it is at rv.
func (l *leases) del(_ context.Context, id, rv string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.server[id]
	switch {
	case cur == nil:
		return apierrors.NewNotFound(leaseResource, id)
	case cur.ResourceVersion != rv:
		return apierrors.NewConflict(leaseResource, id, nil)
	}
	delete(l.server, id)
	delete(l.cache, id)
	return nil
}

// write stores a lease of member id held by holder; seen says whether the
// watch delivers it.
func (l *leases) write(id, holder string, seen bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := int32(10)
	l.rv++
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: leaseName("r", id), ResourceVersion: strconv.Itoa(l.rv)},
		Spec:       coordinationv1.LeaseSpec{LeaseDurationSeconds: &d},
	}
	if holder != "" {
		lease.Spec.HolderIdentity = &holder
	}
	l.server[id] = lease
	l.stored(id, lease)
	if seen {
		l.cache[id] = lease
	}
}

func (l *leases) holder(id string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if x := l.server[id]; x != nil && x.Spec.HolderIdentity != nil {
		return *x.Spec.HolderIdentity
	}
	return ""
}

func (l *leases) list() []*coordinationv1.Lease {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Collect(maps.Values(l.cache))
}

func idOf(name string) string { return strings.TrimPrefix(name, "r-") }

func (l *leases) Get(_ context.Context, n types.NamespacedName) (*coordinationv1.Lease, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if x := l.server[idOf(n.Name)]; x != nil {
		return x.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(leaseResource, n.Name)
}

func (l *leases) Create(_ context.Context, x *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	id := idOf(x.Name)
	if l.server[id] != nil {
		return nil, apierrors.NewAlreadyExists(leaseResource, x.Name)
	}
	l.rv++
	x = x.DeepCopy()
	x.ResourceVersion = strconv.Itoa(l.rv)
	l.server[id], l.cache[id] = x, x
	l.stored(id, x)
	return x.DeepCopy(), nil
}

func (l *leases) Update(_ context.Context, x *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	id := idOf(x.Name)
	cur := l.server[id]
	if cur == nil {
		return nil, apierrors.NewNotFound(leaseResource, x.Name)
	}
	if cur.ResourceVersion != x.ResourceVersion {
		return nil, apierrors.NewConflict(leaseResource, x.Name, nil)
	}
	l.rv++
	x = x.DeepCopy()
	x.ResourceVersion = strconv.Itoa(l.rv)
	l.server[id], l.cache[id] = x, x
	l.stored(id, x)
	return x.DeepCopy(), nil
}

// testConfig is the membership config of the tests: ring "r", the wall
// clock (synctest's), the Leases l.
func testConfig(l *leases, owned func(string) int, labelled func() []string, settle, retention time.Duration) membershipConfig {
	return membershipConfig{
		ring: "r", ns: "ns", clock: clock.Real{}, store: l, del: l.del, log: slog.New(slog.DiscardHandler),
		list: l.list, owned: owned, labelled: labelled, onChange: func(*view) {},
		settle: settle, retention: retention,
	}
}

// renewing writes member id's Lease held by id every 2s until ctx ends,
// as a live member does, and pokes ms.
func renewing(ctx context.Context, l *leases, ms *membership, id string) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Second):
			l.write(id, id, true)
			ms.poke()
		}
	}
}

func TestMembership(t *testing.T) {
	for _, tc := range []struct {
		name string
		// at 5s, after the members a and b joined (Leases of 10s):
		change      func(l *leases)
		aOwnsNone   bool     // no object carries a's label
		members     []string // the members at 12s
		fenced      []string // the fenced members at 12s
		aHolder     string   // the holder of a's Lease at 12s
		extraLabels []string // label values in use besides a and b
	}{
		{name: "a member that renews stays", change: func(l *leases) { l.write("a", "a", true) },
			members: []string{"a", "b"}, aHolder: "a"},
		{name: "a member whose renewals the watch lags behind stays", change: func(l *leases) { l.write("a", "a", false) },
			members: []string{"a", "b"}, aHolder: "a"},
		{name: "a member that stops renewing is fenced when its Lease expires", change: func(*leases) {},
			members: []string{"b"}, fenced: []string{"a"}, aHolder: FenceHolder},
		{name: "a member seen releasing its Lease is fenced at once", change: func(l *leases) { l.write("a", "", true) },
			members: []string{"b"}, fenced: []string{"a"}, aHolder: FenceHolder},
		{name: "a member gone with no objects is not fenced", change: func(*leases) {}, aOwnsNone: true,
			members: []string{"b"}, aHolder: "a"},
		{name: "objects of a member without a Lease get a fenced one", change: func(l *leases) { l.write("a", "a", true) },
			extraLabels: []string{"c"}, members: []string{"a", "b"}, fenced: []string{"c"}, aHolder: "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := newLeases()
				l.write("a", "a", true)
				l.write("b", "b", true)
				owned := func(id string) int {
					if id == "a" && tc.aOwnsNone {
						return 0
					}
					return 1
				}
				labelled := func() []string { return append([]string{"a", "b"}, tc.extraLabels...) }
				ms := newMembership(testConfig(l, owned, labelled, 10*time.Second, -1)) // settling does not delay an expiry or a release seen happen
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				ms.update(ctx)
				go ms.run(ctx)
				time.Sleep(5 * time.Second)
				tc.change(l)
				ms.poke()
				// b keeps renewing, seen by the watch.
				time.Sleep(4 * time.Second)
				l.write("b", "b", true)
				ms.poke()
				time.Sleep(3 * time.Second)
				synctest.Wait()
				v := ms.current()
				if got := v.ring.Members(); !slices.Equal(got, tc.members) {
					t.Errorf("members %v, want %v", got, tc.members)
				}
				if got := slices.Sorted(maps.Keys(v.fenced)); !slices.Equal(got, tc.fenced) && len(got)+len(tc.fenced) > 0 {
					t.Errorf("fenced %v, want %v", got, tc.fenced)
				}
				if got := l.holder("a"); got != tc.aHolder {
					t.Errorf("a's Lease is held by %q, want %q", got, tc.aHolder)
				}
				cancel()
				synctest.Wait()
			})
		})
	}
}

// A fence is renewed while the member's objects remain, and released once
// they are gone or no member is left to take them.
func TestMembershipReleasesTheFence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := newLeases()
		l.write("a", "", true) // released: a left
		l.write("b", "b", true)
		var mu sync.Mutex
		aOwns := 1
		owned := func(id string) int {
			mu.Lock()
			defer mu.Unlock()
			if id == "a" {
				return aOwns
			}
			return 1
		}
		ms := newMembership(testConfig(l, owned, func() []string { return []string{"a", "b"} }, 0, -1))
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		ms.update(ctx)
		go ms.run(ctx)
		for range 6 { // b renews every 2s for 12s; the fence (10s) must outlive it
			time.Sleep(2 * time.Second)
			l.write("b", "b", true)
			ms.poke()
		}
		synctest.Wait()
		if h := l.holder("a"); h != FenceHolder {
			t.Fatalf("after 12s a's Lease is held by %q, want the fence", h)
		}
		mu.Lock()
		aOwns = 0
		mu.Unlock()
		time.Sleep(4 * time.Second) // the next renewal finds nothing left
		synctest.Wait()
		if h := l.holder("a"); h != "" {
			t.Fatalf("a owns nothing, its Lease is held by %q, want released", h)
		}
		cancel()
		synctest.Wait()
	})
}

// Replicas starting together (objects already labelled for them, their
// Leases missing or left released by an earlier run) are not fenced while
// membership settles: those that join within the settle time keep their
// objects; those that do not are fenced once it has passed, counted from
// when the ring became non-empty.
func TestMembershipSettlesBeforeFencingTheAbsent(t *testing.T) {
	const settle = 10 * time.Second
	for _, tc := range []struct {
		name       string
		aJoinsAt   time.Duration // a, the sharder's own member, takes its Lease
		othersJoin time.Duration // b (found released) and c (no Lease) take theirs; 0: never
		members    []string      // at the end (40s)
		fenced     []string      // b and c: ever fenced
		notBefore  time.Duration // and not before this
	}{
		{name: "members joining within the settle time are never fenced", othersJoin: 4 * time.Second,
			members: []string{"a", "b", "c"}},
		{name: "members that do not join are fenced once membership settled", members: []string{"a"},
			fenced: []string{"b", "c"}, notBefore: settle},
		{name: "the settle time counts from when the ring became non-empty", aJoinsAt: 20 * time.Second,
			othersJoin: 25 * time.Second, members: []string{"a", "b", "c"}},
		{name: "absent members are fenced a settle time after the ring became non-empty", aJoinsAt: 20 * time.Second,
			members: []string{"a"}, fenced: []string{"b", "c"}, notBefore: 20*time.Second + settle},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := newLeases()
				l.write("b", "", true) // released by an earlier run
				labelled := func() []string { return []string{"a", "b", "c"} }
				ms := newMembership(testConfig(l, func(string) int { return 1 }, labelled, settle, -1))
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				start := time.Now()
				if tc.aJoinsAt == 0 {
					l.write("a", "a", true)
				}
				ms.update(ctx)
				go ms.run(ctx)
				join := func(at time.Duration, ids ...string) {
					time.AfterFunc(at, func() {
						for _, id := range ids {
							if !l.everFenced(id) {
								l.write(id, id, true)
								go renewing(ctx, l, ms, id)
							}
						}
						ms.poke()
					})
				}
				if tc.aJoinsAt == 0 {
					go renewing(ctx, l, ms, "a")
				} else {
					join(tc.aJoinsAt, "a")
				}
				if tc.othersJoin > 0 {
					join(tc.othersJoin, "b", "c")
				}
				firstFence := time.Duration(0)
				for range 40 {
					time.Sleep(time.Second)
					synctest.Wait()
					if firstFence == 0 && (l.everFenced("b") || l.everFenced("c")) {
						firstFence = time.Since(start)
					}
				}
				if got := ms.current().ring.Members(); !slices.Equal(got, tc.members) {
					t.Errorf("members %v, want %v", got, tc.members)
				}
				var fenced []string
				for _, id := range []string{"b", "c"} {
					if l.everFenced(id) {
						fenced = append(fenced, id)
					}
				}
				if !slices.Equal(fenced, tc.fenced) {
					t.Errorf("fenced %v, want %v", fenced, tc.fenced)
				}
				if firstFence > 0 && firstFence < tc.notBefore {
					t.Errorf("first fence after %v, want not before %v", firstFence, tc.notBefore)
				}
				cancel()
				synctest.Wait()
			})
		})
	}
}

// The Lease of a gone member that owns no objects is deleted once it has
// been gone for the retention, unless the member came back; a negative
// retention keeps it.
func TestMembershipDeletesGoneLeases(t *testing.T) {
	const retention = 30 * time.Second
	for _, tc := range []struct {
		name      string
		retention time.Duration
		gone      func(l *leases) // at 5s, b goes
		backAt    time.Duration   // b takes its Lease again; 0: never
		deleted   time.Duration   // b's Lease is gone by then (0: kept to the end, 60s)
	}{
		{name: "a released Lease is deleted after the retention", retention: retention,
			gone: func(l *leases) { l.write("b", "", true) }, deleted: 5*time.Second + retention + time.Second},
		{name: "an expired Lease is deleted the retention after its expiry", retention: retention,
			gone: func(*leases) {}, deleted: 5*time.Second + 10*time.Second + retention + time.Second},
		{name: "a member that came back keeps its Lease", retention: retention,
			gone: func(l *leases) { l.write("b", "", true) }, backAt: 20 * time.Second},
		{name: "a negative retention keeps every Lease", retention: -1,
			gone: func(l *leases) { l.write("b", "", true) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := newLeases()
				l.write("a", "a", true)
				l.write("b", "b", true)
				owned := func(id string) int {
					if id == "a" {
						return 1
					}
					return 0
				}
				ms := newMembership(testConfig(l, owned, func() []string { return []string{"a"} }, 0, tc.retention))
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				ms.update(ctx)
				go ms.run(ctx)
				go renewing(ctx, l, ms, "a")
				bCtx, stopB := context.WithCancel(ctx)
				defer stopB()
				go renewing(bCtx, l, ms, "b")
				time.Sleep(5 * time.Second)
				stopB()
				tc.gone(l)
				ms.poke()
				if tc.backAt > 0 {
					time.AfterFunc(tc.backAt-5*time.Second, func() {
						l.write("b", "b", true)
						go renewing(ctx, l, ms, "b")
						ms.poke()
					})
				}
				start := 5 * time.Second
				for at := start; at < 60*time.Second; at += time.Second {
					time.Sleep(time.Second)
					synctest.Wait()
					exists := l.exists("b")
					switch {
					case tc.deleted == 0 && !exists:
						t.Fatalf("b's Lease deleted after %v, want it kept", at+time.Second)
					case tc.deleted > 0 && at+time.Second < tc.deleted-2*time.Second && !exists:
						t.Fatalf("b's Lease deleted after %v, want not before %v", at+time.Second, tc.deleted-2*time.Second)
					case tc.deleted > 0 && at+time.Second >= tc.deleted && exists:
						t.Fatalf("b's Lease still there after %v", at+time.Second)
					}
				}
				if l.exists("a") == false {
					t.Error("a's Lease, alive, was deleted")
				}
				cancel()
				synctest.Wait()
			})
		})
	}
}
