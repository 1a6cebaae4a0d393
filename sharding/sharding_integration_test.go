package sharding_test

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/sharding"
	"github.com/kubego/kubego/testenv"
)

// objectCount is the number of ConfigMaps of the ring tests: def, 3,000
// with KUBEGO_SHARDING=long (make test-sharding), or
// KUBEGO_SHARDING_OBJECTS.
func objectCount(t *testing.T, def int) int {
	if s := os.Getenv("KUBEGO_SHARDING_OBJECTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("KUBEGO_SHARDING_OBJECTS=%q", s)
		}
		return n
	}
	if os.Getenv("KUBEGO_SHARDING") == "long" {
		return 3000
	}
	return def
}

// Three replicas share 1,000 ConfigMaps (3,000 in make test-sharding): each caches and reconciles about
// a third. A fourth joins and takes about a quarter, while the leading
// sharder is killed in the middle of the rebalance. Then one replica stops
// gracefully and one is cut off; each time its objects are reassigned and
// reconciled by the others. No object is ever reconciled by two replicas
// at overlapping times.
func TestIntegrationRing(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cl := newCluster(t, cp.Config())
	n := objectCount(t, 1000)
	t0 := time.Now()
	cl.createConfigMaps(ctx, n)
	t.Logf("created %d ConfigMaps in %v", n, time.Since(t0).Round(time.Millisecond))

	t0 = time.Now()
	for _, id := range []string{"r0", "r1", "r2"} {
		cl.start(id)
	}
	owners := cl.settled(ctx, nil, time.Time{})
	t.Logf("3 replicas: every object assigned, cached and reconciled by its owner in %v", time.Since(t0).Round(time.Millisecond))
	cl.shares(owners, 0.2)

	// A fourth replica joins; the leading sharder dies mid-rebalance.
	t0 = time.Now()
	old := cl.leader()
	r3 := cl.start("r3")
	waitFor(t, ctx, "the rebalance to begin", func() bool { return r3.cached() > 0 })
	if old != nil && old.sharder.IsLeader() {
		old.sharderLease.cut.Store(true)
		old.stopSharder()
		t.Logf("killed the leading sharder of %s with %d of %d objects on r3", old.id, r3.cached(), n/4)
	} else {
		t.Errorf("no leading sharder to kill (leader before: %v)", old)
	}
	after := cl.settled(ctx, owners, t0)
	m := moved(owners, after)
	t.Logf("4 replicas: %d of %d objects (%.1f%%) moved to r3 in %v", m, len(after), 100*float64(m)/float64(len(after)), time.Since(t0).Round(time.Millisecond))
	if frac := float64(m) / float64(len(after)); frac < 0.15 || frac > 0.35 {
		t.Errorf("%.2f of the objects moved, want about a quarter", frac)
	}
	for k, o := range after {
		if owners[k] != o && o != "r3" {
			t.Fatalf("%s moved from %s to %s, not to the new replica", k, owners[k], o)
		}
	}
	cl.shares(after, 0.25)
	owners = after

	// A graceful stop: the Lease is released, the objects move at once.
	for _, stopped := range []struct {
		how  string
		stop func(*replica)
	}{{"stopped gracefully", cl.stop}, {"cut off (Lease neither renewed nor released)", cl.kill}} {
		victim := cl.replicas[pick(cl, old)]
		t0 = time.Now()
		stopped.stop(victim)
		after = cl.settled(ctx, owners, t0)
		var theirs int
		for _, o := range owners {
			if o == victim.id {
				theirs++
			}
		}
		t.Logf("%s %s: its %d objects reassigned and reconciled by the others in %v", victim.id, stopped.how, theirs, time.Since(t0).Round(time.Millisecond))
		if m := moved(owners, after); m != theirs {
			t.Errorf("%d objects moved, want only the %d of %s", m, theirs, victim.id)
		}
		cl.shares(after, 0.25)
		owners = after
	}

	cl.noOverlaps(t)
	t.Logf("overlap check: %d reconciles, none of one object by two replicas at once", cl.rec.count())
}

// pick returns a running replica other than avoid (whose sharder is
// already dead), preferring the leading sharder's so that the sharder
// fails over again.
func pick(cl *cluster, avoid *replica) string {
	if l := cl.leader(); l != nil && l != avoid {
		return l.id
	}
	for id, r := range cl.replicas {
		if r != avoid {
			return id
		}
	}
	return ""
}

func waitFor(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// A replica cut off and restarted at once with the same identity waits
// while the sharder holds its Lease (fenced) and moves its objects away;
// it joins when they are gone and takes its share back by drains. No
// object is reconciled by two replicas at once on the way.
func TestIntegrationRestartWithTheSameIdentityWaitsForTheFence(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	cl := newCluster(t, cp.Config())
	cl.createConfigMaps(ctx, objectCount(t, 300))
	cl.start("r0")
	cl.start("r1")
	owners := cl.settled(ctx, nil, time.Time{})
	cl.shares(owners, 0.25)

	t0 := time.Now()
	cl.kill(cl.replicas["r1"])
	leases := client.Typed[*coordinationv1.Lease](cl.c).Namespace(cl.ns)
	waitFor(t, ctx, "the sharder to fence r1", func() bool {
		l, err := leases.Get(ctx, cl.ring+"-r1", metav1.GetOptions{})
		return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity == sharding.FenceHolder
	})
	t.Logf("r1 fenced %v after it was cut off", time.Since(t0).Round(time.Millisecond))
	back := cl.startReplica("r1", true, false)
	fencedFor := time.Now()
	waitFor(t, ctx, "r1 to join again", back.member.Active)
	t.Logf("the restarted r1 joined %v after the fence was seen", time.Since(fencedFor).Round(time.Millisecond))
	// Settled, and r1 has its share back (settled alone can hold for a
	// moment before the sharder has seen r1 join).
	var after map[string]string
	waitFor(t, ctx, "r1 to get its share back", func() bool {
		after = cl.settled(ctx, owners, t0)
		n := 0
		for _, o := range after {
			if o == "r1" {
				n++
			}
		}
		return n >= len(after)/3
	})
	cl.shares(after, 0.25)
	cl.noOverlaps(t)
	t.Logf("overlap check: %d reconciles, none of one object by two replicas at once", cl.rec.count())
}
