package controller

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/informer"
)

// TestWorkersStartOnceEveryInitialKeyIsQueued runs a controller over N
// primaries (Deployments) and N owned objects (ReplicaSets, one per
// Deployment) whose handler is slowed: each of its deliveries waits for the
// test. No worker may start before the last owned object's Request is
// queued, and the start then reconciles each primary exactly once.
func TestWorkersStartOnceEveryInitialKeyIsQueued(t *testing.T) {
	const n = 40
	isController := true
	owned := func(i int) *appsv1.ReplicaSet {
		name := "d" + strconv.Itoa(i)
		return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name + "-rs", OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "apps/v1", Kind: "Deployment", Name: name, UID: "uid", Controller: &isController,
		}}}}
	}
	// Each source's slowed step receives from gate once per delivery.
	for _, tc := range []struct {
		name    string
		sources func(gate <-chan struct{}) []Source
	}{
		{"an Owns source whose predicate is slow", func(gate <-chan struct{}) []Source {
			return []Source{
				For[*appsv1.Deployment]{},
				Owns[*appsv1.ReplicaSet]{Predicates: []Predicate{func(Event) bool { <-gate; return true }}},
			}
		}},
		{"a Watches source whose mapping is slow", func(gate <-chan struct{}) []Source {
			return []Source{
				For[*appsv1.Deployment]{},
				Watches[*appsv1.ReplicaSet]{Map: func(_ context.Context, rs *appsv1.ReplicaSet) []Request {
					<-gate
					return []Request{{Key: informer.Key{Namespace: rs.Namespace, Name: rs.OwnerReferences[0].Name}}}
				}},
			}
		}},
		{"a For source whose predicate is slow", func(gate <-chan struct{}) []Source {
			return []Source{
				For[*appsv1.Deployment]{Predicates: []Predicate{func(Event) bool { <-gate; return true }}},
				Owns[*appsv1.ReplicaSet]{},
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var objs []informer.Object
				for i := range n {
					objs = append(objs, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "d" + strconv.Itoa(i)}}, owned(i))
				}
				src := newMemBackend(objs...)
				gate := make(chan struct{})
				rec := &recorder{}
				h := startController(t, src, Options{Reconciler: rec, MaxConcurrentReconciles: 4, Sources: tc.sources(gate)})
				for i := range n {
					synctest.Wait()
					if rec.total() != 0 || h.ctl.Started() || h.ctl.HasSynced() {
						t.Fatalf("after %d of %d slowed deliveries: %d reconciles, started %v, HasSynced %v",
							i, n, rec.total(), h.ctl.Started(), h.ctl.HasSynced())
					}
					gate <- struct{}{}
				}
				synctest.Wait()
				if !h.ctl.Started() || !h.ctl.HasSynced() {
					t.Fatalf("after the last delivery: started %v, HasSynced %v", h.ctl.Started(), h.ctl.HasSynced())
				}
				if got := rec.total(); got != n {
					t.Fatalf("%d reconciles at start, want %d (one per primary)", got, n)
				}
				for i := range n {
					req := Request{Key: informer.Key{Namespace: "ns", Name: "d" + strconv.Itoa(i)}}
					if got := len(rec.times(req)); got != 1 {
						t.Fatalf("%v reconciled %d times", req, got)
					}
				}
				h.stop(t)
			})
		})
	}
}

// TestSyncStatesIncludeTheHandlers checks that a started controller's
// SyncStates report a source not synced while its handler is still being
// given the initial objects, though its informer has synced.
func TestSyncStatesIncludeTheHandlers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newMemBackend(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "d"}})
		gate := make(chan struct{})
		rec := &recorder{}
		h := startController(t, src, Options{Reconciler: rec, Sources: []Source{
			For[*appsv1.Deployment]{Predicates: []Predicate{func(Event) bool { <-gate; return true }}},
		}})
		synctest.Wait()
		states := func() []bool {
			var out []bool
			for _, synced := range h.ctl.SyncStates() {
				out = append(out, synced)
			}
			return out
		}
		if got := states(); len(got) != 1 || got[0] {
			t.Fatalf("while the handler is behind: %v, want [false]", got)
		}
		gate <- struct{}{}
		synctest.Wait()
		if got := states(); len(got) != 1 || !got[0] {
			t.Fatalf("after the initial delivery: %v, want [true]", got)
		}
		h.stop(t)
	})
}

// An engaged cluster is synced once its sources' handlers have been given
// the cluster's initial objects, not when its informers have synced.
func TestEngagedClusterSyncsWithItsHandlers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clusterSynced := func(ctl *Controller, name string) bool {
			for n, synced := range ctl.Clusters() {
				if n == name {
					return synced
				}
			}
			t.Fatalf("cluster %s not engaged", name)
			return false
		}
		gate := make(chan struct{})
		slowB := func(e Event) bool {
			if e.Object.GetName() == "b" {
				<-gate
			}
			return true
		}
		rec := &recorder{}
		h := startController(t, newMemBackend(cm("a")), Options{Reconciler: rec, MultiCluster: true,
			Sources: []Source{For[*corev1.ConfigMap]{Predicates: []Predicate{slowB}}}})
		engage(t.Context(), t, h.ctl, "east", newMemBackend(cm("b")))
		synctest.Wait()
		if clusterSynced(h.ctl, "east") {
			t.Fatal("cluster synced while its handler is behind")
		}
		gate <- struct{}{}
		synctest.Wait()
		if !clusterSynced(h.ctl, "east") {
			t.Fatal("cluster not synced after its last initial delivery")
		}
		if !slices.Contains(rec.requests(), req("east", "b")) {
			t.Fatalf("reconciled %v", rec.requests())
		}
		h.stop(t)
	})
}
