package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"unsafe"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubego/kubego/informer"
)

func TestRequestString(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  Request
		want string
	}{
		{"namespaced, host cluster", Request{Key: informer.Key{Namespace: "ns", Name: "a"}}, "ns/a"},
		{"cluster-scoped, host cluster", Request{Key: informer.Key{Name: "a"}}, "a"},
		{"namespaced, named cluster", Request{Key: informer.Key{Namespace: "ns", Name: "a"}, Cluster: "east"}, "ns/a@east"},
		{"cluster-scoped, named cluster", Request{Key: informer.Key{Name: "a"}, Cluster: "east"}, "a@east"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.req.String(); got != tc.want {
				t.Fatalf("String = %q, want %q", got, tc.want)
			}
		})
	}
}

// memFactory is an informer factory on src for the tests.
func memFactory(src *memBackend) *informer.Factory {
	return informer.NewFactory(src, informer.FactoryOptions{Reflector: informer.ReflectorOptions{DisableStreaming: true}})
}

// engage engages ctl with a cluster on src, its factory started under ctx.
func engage(ctx context.Context, t *testing.T, ctl *Controller, name string, src *memBackend) *informer.Factory {
	t.Helper()
	f := memFactory(src)
	if err := ctl.Engage(name, f, nil); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	return f
}

func (r *recorder) requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Request
	for _, c := range r.calls {
		out = append(out, c.req)
	}
	slices.SortFunc(out, func(a, b Request) int {
		if c := compare(a.Cluster, b.Cluster); c != 0 {
			return c
		}
		return compare(a.Key.String(), b.Key.String())
	})
	return out
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func req(cluster, name string) Request {
	return Request{Key: informer.Key{Namespace: "ns", Name: name}, Cluster: cluster}
}

// The Requests of each engaged cluster carry its name, whether it was
// engaged before Start or while running; the host's carry none.
func TestMultiClusterRequestsNameTheirCluster(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		rec := &recorder{}
		h := startController(t, newMemBackend(cm("a")), Options{Reconciler: rec, MultiCluster: true,
			Sources: []Source{For[*corev1.ConfigMap]{}}})
		engage(ctx, t, h.ctl, "east", newMemBackend(cm("a"), cm("b")))
		synctest.Wait()
		west := newMemBackend()
		engage(ctx, t, h.ctl, "west", west)
		west.write(cm("c"))
		synctest.Wait()
		want := []Request{req("", "a"), req("east", "a"), req("east", "b"), req("west", "c")}
		if got := rec.requests(); !slices.Equal(got, want) {
			t.Fatalf("reconciled %v, want %v", got, want)
		}
		var names []string
		for name, synced := range h.ctl.Clusters() {
			if !synced {
				t.Errorf("cluster %s not synced", name)
			}
			names = append(names, name)
		}
		if !slices.Equal(names, []string{"east", "west"}) {
			t.Fatalf("Clusters = %v", names)
		}
		h.stop(t)
	})
}

// Disengaging a cluster cancels its reconcile in flight without a retry
// and drops its queued Requests; the other clusters go on.
func TestDisengageCancelsAndDropsTheClusterRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		var mu sync.Mutex
		var cancelled []Request
		rec := &recorder{fn: func(ctx context.Context, r Request, _ int) (Result, error) {
			if r.Cluster != "east" {
				return Result{}, nil
			}
			<-ctx.Done() // an east reconcile hangs until cancelled
			mu.Lock()
			cancelled = append(cancelled, r)
			mu.Unlock()
			return Result{}, ctx.Err()
		}}
		host := newMemBackend()
		h := startController(t, host, Options{Reconciler: rec, MultiCluster: true, MaxConcurrentReconciles: 1,
			Sources: []Source{For[*corev1.ConfigMap]{}}})
		engage(ctx, t, h.ctl, "east", newMemBackend(cm("a"), cm("b"), cm("c")))
		synctest.Wait() // one east reconcile hangs, two are queued
		if err := h.ctl.Disengage("east"); err != nil {
			t.Fatal(err)
		}
		if n := h.ctl.queue.Len(); n != 0 {
			t.Errorf("%d Requests still queued after Disengage, want east's dropped", n)
		}
		host.write(cm("h"))
		time.Sleep(time.Hour) // long enough for any retry
		synctest.Wait()
		mu.Lock()
		if len(cancelled) != 1 {
			t.Errorf("cancelled reconciles = %v, want the one in flight", cancelled)
		}
		mu.Unlock()
		var east int
		for _, r := range rec.requests() {
			if r.Cluster == "east" {
				east++
			}
		}
		if east != 1 {
			t.Errorf("east reconciles = %d, want 1 (the queued ones dropped, none retried)", east)
		}
		if !slices.Contains(rec.requests(), req("", "h")) {
			t.Error("the host was not reconciled after the removal")
		}
		if err := h.ctl.Disengage("east"); !errors.Is(err, ErrUnknownCluster) {
			t.Errorf("second Disengage = %v, want ErrUnknownCluster", err)
		}
		h.stop(t)
	})
}

// A cluster whose list never answers holds up only its own Requests: the
// workers start on the host's sync and serve the other clusters.
func TestSlowClusterStallsNoOther(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		rec := &recorder{}
		slow := newMemBackend(cm("s"))
		slow.gate = make(chan struct{})
		h := startController(t, newMemBackend(cm("a")), Options{Reconciler: rec, MultiCluster: true,
			CacheSyncTimeout: time.Minute,
			Sources:          []Source{For[*corev1.ConfigMap]{}}})
		engage(ctx, t, h.ctl, "slow", slow)
		east := newMemBackend()
		engage(ctx, t, h.ctl, "east", east)
		east.write(cm("e"))
		synctest.Wait()
		want := []Request{req("", "a"), req("east", "e")}
		if got := rec.requests(); !slices.Equal(got, want) {
			t.Fatalf("reconciled %v, want %v", got, want)
		}
		for name, synced := range h.ctl.Clusters() {
			if synced != (name != "slow") {
				t.Errorf("cluster %s synced = %v", name, synced)
			}
		}
		close(slow.gate) // it answers at last
		synctest.Wait()
		if !slices.Contains(rec.requests(), req("slow", "s")) {
			t.Fatal("the slow cluster's object was not reconciled once it answered")
		}
		h.stop(t)
	})
}

func TestEngageErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		single := startController(t, newMemBackend(), Options{Reconciler: &recorder{}, Sources: []Source{For[*corev1.ConfigMap]{}}})
		if err := single.ctl.Engage("east", memFactory(newMemBackend()), nil); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("Engage of a single-cluster controller = %v, want ErrInvalidOptions", err)
		}
		single.stop(t)

		h := startController(t, newMemBackend(), Options{Reconciler: &recorder{}, MultiCluster: true, Sources: []Source{For[*corev1.ConfigMap]{}}})
		for _, tc := range []struct {
			name    string
			cluster string
			factory *informer.Factory
			want    error
		}{
			{"empty name", "", memFactory(newMemBackend()), ErrInvalidOptions},
			{"nil factory", "east", nil, ErrInvalidOptions},
			{"first engage", "east", memFactory(newMemBackend()), nil},
			{"duplicate name", "east", memFactory(newMemBackend()), ErrDuplicateCluster},
		} {
			if err := h.ctl.Engage(tc.cluster, tc.factory, nil); !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
				t.Errorf("%s: Engage = %v, want %v", tc.name, err, tc.want)
			}
		}
		h.stop(t)
		if err := h.ctl.Engage("west", memFactory(newMemBackend()), nil); !errors.Is(err, ErrStopped) {
			t.Errorf("Engage after Start returned = %v, want ErrStopped", err)
		}
		if err := h.ctl.Disengage("east"); !errors.Is(err, ErrUnknownCluster) {
			t.Errorf("Disengage after Start returned = %v, want ErrUnknownCluster (every cluster disengaged)", err)
		}
	})
	if _, err := New(memFactory(newMemBackend()), Options{Reconciler: &recorder{}, SkipHostCluster: true,
		Sources: []Source{For[*corev1.ConfigMap]{}}}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("SkipHostCluster without MultiCluster = %v, want ErrInvalidOptions", err)
	}
}

// The clusters of a MultiCluster controller are served in turn: a cluster
// engaged while another's backlog of 50 waits is reconciled within a
// couple of turns, not after the backlog. An explicit Lane overrides.
func TestClustersAreServedInTurn(t *testing.T) {
	for _, tc := range []struct {
		name               string
		lane               func(Request) string
		minAhead, maxAhead int // big's reconciles before small's
	}{
		{name: "by cluster", minAhead: 0, maxAhead: 2},
		{name: "one lane when Lane says so", lane: func(Request) string { return "" }, minAhead: 50, maxAhead: 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := t.Context()
				rec := &recorder{fn: func(context.Context, Request, int) (Result, error) {
					time.Sleep(time.Second)
					return Result{}, nil
				}}
				h := startController(t, newMemBackend(), Options{Reconciler: rec, MultiCluster: true, SkipHostCluster: true,
					MaxConcurrentReconciles: 1, Lane: tc.lane,
					Sources: []Source{For[*corev1.ConfigMap]{}}})
				var objs []informer.Object
				for i := range 50 {
					objs = append(objs, cm(fmt.Sprint("b", i)))
				}
				engage(ctx, t, h.ctl, "big", newMemBackend(objs...))
				synctest.Wait() // big's backlog queued, the worker busy
				engage(ctx, t, h.ctl, "small", newMemBackend(cm("s")))
				time.Sleep(time.Minute)
				synctest.Wait()
				rec.mu.Lock()
				at := slices.IndexFunc(rec.calls, func(c call) bool { return c.req.Cluster == "small" })
				n := len(rec.calls)
				rec.mu.Unlock()
				if n != 51 {
					t.Fatalf("%d reconciles, want 51", n)
				}
				if at < tc.minAhead || at > tc.maxAhead {
					t.Fatalf("small's Request reconciled after %d of big's, want %d to %d", at, tc.minAhead, tc.maxAhead)
				}
				h.stop(t)
			})
		})
	}
}

// A queued Request's key strings are copies: a key read from a compact
// cache views the cache's chunk, which the queue must not keep alive.
func TestQueuedRequestsOwnTheirKeyStrings(t *testing.T) {
	buf := []byte("nsname")
	view := unsafe.String(&buf[0], len(buf))
	r := Request{Key: informer.Key{Namespace: view[:2], Name: view[2:]}, Cluster: "east"}
	got := r.owned()
	if got != r {
		t.Fatalf("owned() = %v, want %v", got, r)
	}
	for _, s := range []string{got.Key.Namespace, got.Key.Name} {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		if start := uintptr(unsafe.Pointer(&buf[0])); p >= start && p < start+uintptr(len(buf)) {
			t.Fatalf("owned() key string %q still views the source bytes", s)
		}
	}
}
