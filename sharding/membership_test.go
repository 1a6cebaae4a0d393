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
	mu     sync.Mutex
	rv     int
	server map[string]*coordinationv1.Lease // by member identity
	cache  map[string]*coordinationv1.Lease
}

func newLeases() *leases {
	return &leases{server: map[string]*coordinationv1.Lease{}, cache: map[string]*coordinationv1.Lease{}}
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
	return x.DeepCopy(), nil
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
		{name: "a member that releases its Lease is fenced at once", change: func(l *leases) { l.write("a", "", true) },
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
				ms := newMembership("r", "ns", RingOptions{}, clock.Real{}, l, slog.New(slog.DiscardHandler), l.list, owned, labelled, func(*view) {})
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
		ms := newMembership("r", "ns", RingOptions{}, clock.Real{}, l, slog.New(slog.DiscardHandler), l.list, owned,
			func() []string { return []string{"a", "b"} }, func(*view) {})
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
