package sharding_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/sharding"
	"github.com/kubego/kubego/testenv"
)

// liveHeap returns the bytes of live heap objects after two collections.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// The figures of make bench-sharding: on KUBEGO_SHARDING_BENCH_OBJECTS
// (default 30,000) ConfigMaps, the live heap of each replica's cache (its
// informer, controller and queue) with 1, 2 and 3 replicas, and of the
// leading sharder's metadata cache; then three replicas starting together
// on the labelled objects (the time until every object is reconciled by
// its owner, the reconciles, the objects that moved); then the time from
// cutting one off until its objects are reassigned and reconciled, and
// the overlap check. Objects are created already labelled for rings of
// 1, 2 and 3 members, so that the memory runs need no relabelling.
func TestShardingBench(t *testing.T) {
	if os.Getenv("KUBEGO_SHARDING_BENCH") == "" {
		t.Skip("the sharding measurements run with make bench-sharding")
	}
	n := 30000
	if s := os.Getenv("KUBEGO_SHARDING_BENCH_OBJECTS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Minute)
	defer cancel()
	cl := newCluster(t, cp.Config())
	// The leaderelection defaults: a Lease renewal that waits behind tens
	// of thousands of objects being listed on a loaded machine must not
	// cost a replica its Lease.
	cl.leases = [3]time.Duration{15 * time.Second, 10 * time.Second, 2 * time.Second}
	kind := schema.GroupKind{Kind: "ConfigMap"}
	ids := []string{"r0", "r1", "r2"}
	rings := map[int]*sharding.Ring{}
	want := map[string]int{} // ring/replica → objects
	for k := 1; k <= 3; k++ {
		rings[k] = sharding.NewRing(ids[:k], sharding.RingOptions{})
	}
	label := func(name string) map[string]string {
		out := map[string]string{}
		for k, r := range rings {
			owner := r.Owner(sharding.ObjectKey(kind, &metav1.ObjectMeta{Namespace: cl.ns, Name: name}))
			out[sharding.ShardLabel("k"+strconv.Itoa(k))] = owner
		}
		return out
	}
	for i := range n {
		for k, v := range label("cm-" + strconv.Itoa(i)) {
			want[k+"/"+v]++
		}
	}
	t0 := time.Now()
	cl.createLabelled(ctx, n, label)
	t.Logf("created %d labelled ConfigMaps in %v", n, time.Since(t0).Round(time.Second))

	// Memory: one replica at a time, so that each delta is its own.
	cl.noRecord = true
	cl.work = 0
	for k := 1; k <= 3; k++ {
		cl.ring = "k" + strconv.Itoa(k)
		for _, id := range ids[:k] {
			expect := want[sharding.ShardLabel(cl.ring)+"/"+id]
			before := liveHeap()
			r := cl.startReplica(id, true, false)
			waitFor(t, ctx, id+" to cache its objects", func() bool { return r.cached() == expect })
			after := liveHeap()
			t.Logf("%d replica(s): %s caches %d objects; live heap of its cache %s", k, id, expect, mib(int64(after)-int64(before)))
			cl.stop(r)
		}
	}
	cl.ring = "k3"
	before := liveHeap()
	s := cl.startReplica("sharder-only", false, true)
	waitFor(t, ctx, "the sharder to cache every object", func() bool {
		sum := 0
		for _, c := range s.sharder.Counts() {
			sum += c
		}
		return sum >= n
	})
	after := liveHeap()
	t.Logf("the leading sharder's metadata cache of %d objects: live heap %s", n, mib(int64(after)-int64(before)))
	cl.stop(s)

	// Start-up on labelled objects: the three replicas start together,
	// each a member and a sharder candidate, as the pods of a deployment
	// do; their Leases were left released by the memory runs, so the
	// first sharder to lead finds the others absent.
	cl.noRecord = false
	cl.work = 2 * time.Millisecond
	t0 = time.Now()
	for _, id := range ids {
		cl.start(id)
	}
	waitFor(t, ctx, "the members to join", func() bool {
		for _, id := range ids {
			if !cl.replicas[id].member.Active() {
				return false
			}
		}
		return true
	})
	owners := cl.settled(ctx, nil, time.Time{})
	pre := map[string]string{}
	for i := range n {
		name := "cm-" + strconv.Itoa(i)
		pre[name] = label(name)[sharding.ShardLabel(cl.ring)]
	}
	strangers := 0
	for key, rs := range cl.rec.replicasOf() {
		for _, r := range rs {
			if id, _, _ := strings.Cut(r, "#"); id != pre[key] {
				strangers++
				break
			}
		}
	}
	t.Logf("3 replicas started together on %d labelled objects; every object reconciled by its owner in %v: %d reconciles, %d objects ended on another replica than labelled, %d were reconciled by one",
		n, time.Since(t0).Round(time.Millisecond), cl.rec.count(), moved(pre, owners), strangers)

	// Reassignment after a replica (not the leading sharder's) is cut off.
	var victim *replica
	for _, id := range ids {
		if r := cl.replicas[id]; !r.sharder.IsLeader() {
			victim = r
			break
		}
	}
	theirs := 0
	for _, o := range owners {
		if o == victim.id {
			theirs++
		}
	}
	t0 = time.Now()
	cl.kill(victim)
	cl.settled(ctx, owners, t0)
	t.Logf("%s cut off: its %d objects reassigned and reconciled by the others in %v (Lease duration %v)", victim.id, theirs, time.Since(t0).Round(time.Millisecond), cl.leases[0])
	cl.noOverlaps(t)
	t.Logf("overlap check: %d reconciles, none of one object by two replicas at once", cl.rec.count())
}
