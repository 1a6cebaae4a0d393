package leaderelection

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

var leasesResource = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}

// memStore is an in-memory LeaseStore with the API server's optimistic
// concurrency: every write bumps a global resourceVersion and an Update
// with a stale one is a Conflict.
type memStore struct {
	mu       sync.Mutex
	leases   map[types.NamespacedName]*coordinationv1.Lease
	rv       int
	watchers map[int]func() // called under mu after each write or delete
	nextW    int
	wroteAt  map[string]time.Time // by holder: when a write naming it last succeeded
}

func newMemStore() *memStore {
	return &memStore{leases: map[types.NamespacedName]*coordinationv1.Lease{}, watchers: map[int]func(){}, wroteAt: map[string]time.Time{}}
}

func (s *memStore) Get(ctx context.Context, lock types.NamespacedName) (*coordinationv1.Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.leases[lock]
	if !ok {
		return nil, apierrors.NewNotFound(leasesResource, lock.Name)
	}
	return l.DeepCopy(), nil
}

func (s *memStore) Create(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := types.NamespacedName{Namespace: lease.Namespace, Name: lease.Name}
	if _, ok := s.leases[key]; ok {
		return nil, apierrors.NewAlreadyExists(leasesResource, lease.Name)
	}
	return s.put(key, lease), nil
}

func (s *memStore) Update(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := types.NamespacedName{Namespace: lease.Namespace, Name: lease.Name}
	cur, ok := s.leases[key]
	if !ok {
		return nil, apierrors.NewNotFound(leasesResource, lease.Name)
	}
	if lease.ResourceVersion != cur.ResourceVersion {
		return nil, apierrors.NewConflict(leasesResource, lease.Name, errors.New("the object has been modified"))
	}
	return s.put(key, lease), nil
}

func (s *memStore) put(key types.NamespacedName, lease *coordinationv1.Lease) *coordinationv1.Lease {
	s.rv++
	l := lease.DeepCopy()
	l.ResourceVersion = strconv.Itoa(s.rv)
	s.leases[key] = l
	s.wroteAt[holderOf(l)] = time.Now()
	s.notify()
	return l.DeepCopy()
}

func (s *memStore) notify() {
	for _, f := range s.watchers {
		f()
	}
}

// lastWriteBy returns when a write naming holder last succeeded.
func (s *memStore) lastWriteBy(holder string) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wroteAt[holder]
}

// watch calls changed after each write or delete, and once now if the
// lease exists, until ctx ends.
func (s *memStore) watch(ctx context.Context, lock types.NamespacedName, changed func()) {
	s.mu.Lock()
	id := s.nextW
	s.nextW++
	s.watchers[id] = changed
	if _, ok := s.leases[lock]; ok {
		changed()
	}
	s.mu.Unlock()
	<-ctx.Done()
	s.mu.Lock()
	delete(s.watchers, id)
	s.mu.Unlock()
}

// touch rewrites the lease as another writer would (a label change),
// bumping its resourceVersion.
func (s *memStore) touch(lock types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.leases[lock]; ok {
		l = l.DeepCopy()
		l.Labels = map[string]string{"touched": strconv.Itoa(s.rv)}
		s.put(lock, l)
	}
}

func (s *memStore) delete(lock types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.leases, lock)
	s.notify()
}

func (s *memStore) holder(lock types.NamespacedName) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return holderOf(s.leases[lock])
}

// netMode is how a view reaches the store.
type netMode int

const (
	netUp   netMode = iota
	netFail         // every call fails at once
	netHang         // every call blocks until its context ends
)

// view is one candidate's connection to a shared memStore: it can be cut
// (failing or hanging) and can add latency.
type view struct {
	s *memStore

	mu      sync.Mutex
	mode    netMode
	latency time.Duration
}

var errNetwork = errors.New("network unreachable")

func (v *view) set(mode netMode) {
	v.mu.Lock()
	v.mode = mode
	v.mu.Unlock()
}

func (v *view) before(ctx context.Context) error {
	v.mu.Lock()
	mode, lat := v.mode, v.latency
	v.mu.Unlock()
	switch mode {
	case netFail:
		return errNetwork
	case netHang:
		<-ctx.Done()
		return ctx.Err()
	}
	if lat > 0 {
		t := time.NewTimer(lat)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (v *view) Get(ctx context.Context, lock types.NamespacedName) (*coordinationv1.Lease, error) {
	if err := v.before(ctx); err != nil {
		return nil, err
	}
	return v.s.Get(ctx, lock)
}

func (v *view) Create(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	if err := v.before(ctx); err != nil {
		return nil, err
	}
	return v.s.Create(ctx, lease)
}

func (v *view) Update(ctx context.Context, lease *coordinationv1.Lease) (*coordinationv1.Lease, error) {
	if err := v.before(ctx); err != nil {
		return nil, err
	}
	return v.s.Update(ctx, lease)
}

// watchingView is a view whose store is a LeaseWatcher: the watch fails
// or hangs with the view's network.
type watchingView struct{ *view }

func (v watchingView) WatchLease(ctx context.Context, lock types.NamespacedName, changed func()) error {
	if err := v.before(ctx); err != nil {
		return err
	}
	v.s.watch(ctx, lock, changed)
	return nil
}

func notFound() error { return apierrors.NewNotFound(leasesResource, "lock") }

func conflict() error {
	return apierrors.NewConflict(leasesResource, "lock", errors.New("the object has been modified"))
}
