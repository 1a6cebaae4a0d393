package sharding

import (
	"context"
	"log/slog"
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

// leases is an in-memory LeaseStore whose list (the watch's view) can lag
// behind its Get (a consistent read).
type leases struct {
	mu     sync.Mutex
	server map[string]*coordinationv1.Lease
	cache  map[string]*coordinationv1.Lease
}

func newLeases() *leases {
	return &leases{server: map[string]*coordinationv1.Lease{}, cache: map[string]*coordinationv1.Lease{}}
}

// write stores a lease of member id at rv; seen says whether the watch
// delivers it.
func (l *leases) write(id, holder, rv string, seen bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := int32(10)
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: leaseName("r", id), ResourceVersion: rv},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &d},
	}
	l.server[id] = lease
	if seen {
		l.cache[id] = lease
	}
}

func (l *leases) list() []*coordinationv1.Lease {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*coordinationv1.Lease
	for _, x := range l.cache {
		out = append(out, x)
	}
	return out
}

func (l *leases) Get(_ context.Context, n types.NamespacedName) (*coordinationv1.Lease, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, x := range l.server {
		if x.Name == n.Name {
			return x.DeepCopy(), nil
		}
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, n.Name)
}

func (l *leases) Create(context.Context, *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	panic("the sharder never writes a member's Lease")
}

func (l *leases) Update(context.Context, *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	panic("the sharder never writes a member's Lease")
}

func TestMembership(t *testing.T) {
	for _, tc := range []struct {
		name string
		// after the members a and b joined, at 5s:
		change func(l *leases)
		want   []string // the members at 12s (a's Lease lasts 10s)
	}{
		{"a member that renews stays", func(l *leases) { l.write("a", "a", "2", true) }, []string{"a", "b"}},
		{"a member whose renewals the watch lags behind stays", func(l *leases) { l.write("a", "a", "2", false) }, []string{"a", "b"}},
		{"a member that stops renewing leaves when its Lease expires", func(*leases) {}, []string{"b"}},
		{"a member that releases its Lease leaves at once", func(l *leases) { l.write("a", "", "2", true) }, []string{"b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				l := newLeases()
				l.write("a", "a", "1", true)
				l.write("b", "b", "1", true)
				var (
					mu    sync.Mutex
					views [][]string
				)
				ms := newMembership("r", "ns", RingOptions{}, clock.Real{}, l, slog.New(slog.DiscardHandler), l.list, func(v *view) {
					mu.Lock()
					views = append(views, v.ring.Members())
					mu.Unlock()
				})
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				ms.update(ctx)
				go ms.run(ctx)
				time.Sleep(5 * time.Second)
				tc.change(l)
				ms.poke()
				// b keeps renewing, seen by the watch.
				time.Sleep(4 * time.Second)
				l.write("b", "b", "2", true)
				ms.poke()
				time.Sleep(3 * time.Second)
				synctest.Wait()
				got := ms.current().ring.Members()
				if !equal(got, tc.want) {
					t.Fatalf("members %v, want %v (views %v)", got, tc.want, views)
				}
				cancel()
				synctest.Wait()
			})
		})
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
