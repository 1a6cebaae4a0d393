package sharding_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/sharding"
	"github.com/kubego/kubego/testenv"
)

// holderOf returns the holder of member id's Lease ("" when released or
// missing).
func (cl *cluster) holderOf(t *testing.T, id string) string {
	t.Helper()
	l, err := client.Typed[*coordinationv1.Lease](cl.c).Namespace(cl.ns).Get(t.Context(), cl.ring+"-"+id, metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// onlyBy fails the test for every key some replica other than its
// owner's incarnations reconciled.
func (cl *cluster) onlyBy(t *testing.T, owners map[string]string) {
	t.Helper()
	bad := 0
	for key, rs := range cl.rec.replicasOf() {
		for _, r := range rs {
			if id, _, _ := strings.Cut(r, "#"); id != owners[key] {
				if bad == 0 {
					t.Errorf("%s (owner %s) was reconciled by %v", key, owners[key], rs)
				}
				bad++
				break
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d objects were reconciled by a replica other than their owner", bad)
	}
}

// Replicas starting on objects labelled for them already (a new
// deployment, a rolling restart) keep those objects, although the
// sharder leads before the others have joined: one replica's Lease was
// left released by an earlier run, the other has none. No object moves,
// each is reconciled by its owner only.
func TestIntegrationStartOnLabelledObjects(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	cl := newCluster(t, cp.Config())
	ids := []string{"r0", "r1", "r2"}
	ring := sharding.NewRing(ids, sharding.RingOptions{})
	kind := schema.GroupKind{Kind: "ConfigMap"}
	n := objectCount(t, 300)
	owner := func(name string) string {
		return ring.Owner(sharding.ObjectKey(kind, &metav1.ObjectMeta{Namespace: cl.ns, Name: name}))
	}
	pre := map[string]string{}
	for i := range n {
		name := "cm-" + strconv.Itoa(i)
		pre[name] = owner(name)
	}
	cl.createLabelled(ctx, n, func(name string) map[string]string {
		return map[string]string{sharding.ShardLabel(cl.ring): owner(name)}
	})
	released := ""
	d := int32(cl.leases[0] / time.Second)
	if _, err := client.Typed[*coordinationv1.Lease](cl.c).Namespace(cl.ns).Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: cl.ring + "-r1", Labels: map[string]string{sharding.RingLabel: cl.ring}},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &released, LeaseDurationSeconds: &d},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	t0 := time.Now()
	first := cl.start("r0")
	waitFor(t, ctx, "r0's sharder to lead with r0 alone", func() bool { return len(first.sharder.Members()) == 1 })
	cl.start("r1")
	cl.start("r2")
	owners := cl.settled(ctx, nil, time.Time{})
	t.Logf("3 replicas started on %d labelled objects and every object reconciled by its owner in %v; %d reconciles",
		n, time.Since(t0).Round(time.Millisecond), cl.rec.count())
	if m := moved(pre, owners); m != 0 {
		t.Errorf("%d objects changed owner", m)
	}
	cl.onlyBy(t, pre)
	for _, id := range ids {
		if h := cl.holderOf(t, id); h != id {
			t.Errorf("%s's Lease is held by %q", id, h)
		}
	}
	cl.noOverlaps(t)
}

// A replica cut off and restarted at once under the same identity, before
// its Lease expired, takes its Lease back: none of its objects moves.
func TestIntegrationRestartBeforeTheLeaseExpiresKeepsTheObjects(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	cl := newCluster(t, cp.Config())
	cl.createConfigMaps(ctx, objectCount(t, 300))
	cl.start("r0")
	cl.start("r1")
	owners := cl.settled(ctx, nil, time.Time{})

	t0 := time.Now()
	cl.kill(cl.replicas["r1"])
	back := cl.startReplica("r1", true, false)
	waitFor(t, ctx, "r1 to join again", back.member.Active)
	t.Logf("r1 restarted and joined %v after it was cut off", time.Since(t0).Round(time.Millisecond))
	after := cl.settled(ctx, owners, t0)
	if m := moved(owners, after); m != 0 {
		t.Errorf("%d objects changed owner", m)
	}
	cl.onlyBy(t, owners)
	if h := cl.holderOf(t, "r1"); h != "r1" {
		t.Errorf("r1's Lease is held by %q", h)
	}
	cl.noOverlaps(t)
}

// A replica that keeps its Lease when it stops (KeepLeaseOnStop), stopped
// gracefully and started again under the same identity, keeps its
// objects: a rolling restart of replicas with stable identities moves
// nothing.
func TestIntegrationRollingRestartKeepingTheLeaseMovesNothing(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	cl := newCluster(t, cp.Config())
	cl.keep = true
	cl.createConfigMaps(ctx, objectCount(t, 300))
	for _, id := range []string{"r0", "r1", "r2"} {
		cl.start(id)
	}
	owners := cl.settled(ctx, nil, time.Time{})
	t0 := time.Now()
	for _, id := range []string{"r0", "r1", "r2"} {
		cl.stop(cl.replicas[id])
		back := cl.start(id)
		waitFor(t, ctx, id+" to join again", back.member.Active)
	}
	after := cl.settled(ctx, owners, t0)
	t.Logf("3 replicas restarted one by one and every object reconciled by its owner in %v", time.Since(t0).Round(time.Millisecond))
	if m := moved(owners, after); m != 0 {
		t.Errorf("%d objects changed owner", m)
	}
	cl.onlyBy(t, owners)
	cl.noOverlaps(t)
}

// The Lease of a replica that stopped, once its objects have moved and its
// fence was released, is deleted after the retention; the others stay.
func TestIntegrationGoneLeasesAreDeleted(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	cl := newCluster(t, cp.Config())
	cl.retain = 2 * time.Second
	cl.createConfigMaps(ctx, objectCount(t, 300))
	cl.start("r0")
	cl.start("r1")
	owners := cl.settled(ctx, nil, time.Time{})
	// Stop the replica whose sharder does not lead, so that the leader
	// saw the release happen.
	victim := cl.replicas["r1"]
	if victim.sharder.IsLeader() {
		victim = cl.replicas["r0"]
	}
	t0 := time.Now()
	cl.stop(victim)
	cl.settled(ctx, owners, t0)
	leases := client.Typed[*coordinationv1.Lease](cl.c).Namespace(cl.ns)
	waitFor(t, ctx, victim.id+"'s Lease to be deleted", func() bool {
		_, err := leases.Get(ctx, cl.ring+"-"+victim.id, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	t.Logf("%s's Lease deleted %v after it stopped", victim.id, time.Since(t0).Round(time.Millisecond))
	for _, r := range cl.replicas {
		if h := cl.holderOf(t, r.id); h != r.id {
			t.Errorf("%s's Lease is held by %q", r.id, h)
		}
	}
}
