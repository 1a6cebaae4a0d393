package faults_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

// candidate is one elector and the times it acted as leader.
type candidate struct {
	e    *leaderelection.Elector
	done chan error

	mu        sync.Mutex
	started   time.Time // first OnStartedLeading
	lastAct   time.Time // last "leader work" tick, done while its ctx was live
	stoppedAt time.Time // when its leader context ended
}

func newCandidate(t *testing.T, cfg *rest.Config, lock types.NamespacedName, id string) *candidate {
	t.Helper()
	cd := &candidate{done: make(chan error, 1)}
	e, err := leaderelection.New(leaderelection.NewStore(newClient(t, cfg)), leaderelection.Config{
		Lock: lock, Identity: id,
		LeaseDuration: 4 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond,
		Callbacks: leaderelection.Callbacks{OnStartedLeading: func(ctx context.Context) {
			cd.mu.Lock()
			if cd.started.IsZero() {
				cd.started = time.Now()
			}
			cd.mu.Unlock()
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					cd.mu.Lock()
					cd.stoppedAt = time.Now()
					cd.mu.Unlock()
					return
				case <-tick.C:
					// The leader's work: stamped only while the term's
					// context is live.
					if ctx.Err() == nil {
						cd.mu.Lock()
						cd.lastAct = time.Now()
						cd.mu.Unlock()
					}
				}
			}
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cd.e = e
	return cd
}

func (cd *candidate) times() (started, lastAct, stopped time.Time) {
	cd.mu.Lock()
	defer cd.mu.Unlock()
	return cd.started, cd.lastAct, cd.stoppedAt
}

func (cd *candidate) run(ctx context.Context) { go func() { cd.done <- cd.e.Run(ctx) }() }

// Scenario 14: the leader is partitioned from the API server (its
// connection black-holed) beyond RenewDeadline. It must stop acting before
// the other candidate starts leading.
func TestLeaderPartitioned(t *testing.T) {
	cp := testenv.Shared(t)
	ns := newNamespace(t, newClient(t, cp.Config()))
	p := newTCPProxy(t, apiAddr(t, cp.APIServer().URL()))
	lock := types.NamespacedName{Namespace: ns, Name: "faults-leader"}
	a := newCandidate(t, viaProxy(cp.Config(), p), lock, "a")
	b := newCandidate(t, cp.Config(), lock, "b")
	ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
	defer cancel()
	a.run(ctx)
	for !a.e.IsLeader() && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	b.run(ctx)
	sleepCtx(ctx, time.Second)
	partitioned := time.Now()
	p.SetMode(l4BlackHole)
	for !b.e.IsLeader() && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	if ctx.Err() != nil {
		t.Fatal("b never became leader")
	}
	sleepCtx(ctx, time.Second)
	p.SetMode(l4Pass)
	p.Reset()
	sleepCtx(ctx, 2*time.Second)
	if !b.e.IsLeader() || a.e.IsLeader() {
		t.Errorf("after the partition healed: a leader=%v, b leader=%v; want b only", a.e.IsLeader(), b.e.IsLeader())
	}
	cancel()
	for _, cd := range []*candidate{a, b} {
		select {
		case <-cd.done:
		case <-time.After(10 * time.Second):
			t.Error("elector Run did not return after cancel")
		}
	}
	_, aLast, aStopped := a.times()
	bStarted, _, _ := b.times()
	t.Logf("partition at 0: a stopped acting at +%s (last act +%s), b started at +%s; margin %s",
		aStopped.Sub(partitioned).Round(time.Millisecond), aLast.Sub(partitioned).Round(time.Millisecond),
		bStarted.Sub(partitioned).Round(time.Millisecond), bStarted.Sub(aLast).Round(time.Millisecond))
	if !aLast.Before(bStarted) || aStopped.IsZero() || !aStopped.Before(bStarted) {
		t.Errorf("two leaders at once: a acted until %s, b started at %s", aLast, bStarted)
	}
}
