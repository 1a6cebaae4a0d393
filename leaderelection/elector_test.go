package leaderelection

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

var testLock = types.NamespacedName{Namespace: "ns", Name: "lock"}

// interval is one observed term: from the start of OnStartedLeading to the
// moment its context was cancelled.
// startSeq and stopSeq order the events across candidates: under
// testing/synctest's fake clock one term can end and the next begin at the
// same instant, so the clock alone cannot tell them apart.
type interval struct {
	who               string
	start, stop       time.Time
	startSeq, stopSeq int64
}

// history collects the terms of all candidates of a test.
type history struct {
	mu   sync.Mutex
	seq  atomic.Int64
	list []interval
}

func (h *history) callbacks(who string) Callbacks {
	return Callbacks{OnStartedLeading: func(ctx context.Context) {
		start, startSeq := time.Now(), h.seq.Add(1)
		<-ctx.Done()
		stop, stopSeq := time.Now(), h.seq.Add(1)
		h.mu.Lock()
		h.list = append(h.list, interval{who, start, stop, startSeq, stopSeq})
		h.mu.Unlock()
	}}
}

func (h *history) terms() []interval {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := slices.Clone(h.list)
	slices.SortFunc(out, func(a, b interval) int { return cmp.Compare(a.startSeq, b.startSeq) })
	return out
}

// checkNoOverlap fails when a term began before the previous one ended:
// by the clock, or at the same instant out of order.
func checkNoOverlap(t *testing.T, terms []interval) {
	t.Helper()
	for i := 1; i < len(terms); i++ {
		if terms[i].start.Before(terms[i-1].stop) || terms[i].startSeq < terms[i-1].stopSeq {
			t.Errorf("terms overlap: %s led %v..%v, %s from %v", terms[i-1].who, terms[i-1].start, terms[i-1].stop, terms[i].who, terms[i].start)
		}
	}
}

// candidate runs one elector in the background.
type candidate struct {
	e      *Elector
	v      *view
	cancel context.CancelFunc
	err    chan error
}

func startCandidate(t *testing.T, s *memStore, id string, h *history, mod func(*Config)) *candidate {
	return startCandidateOn(t, s, id, h, mod, false)
}

// startWatchingCandidate is startCandidate with a store that is a
// LeaseWatcher.
func startWatchingCandidate(t *testing.T, s *memStore, id string, h *history, mod func(*Config)) *candidate {
	return startCandidateOn(t, s, id, h, mod, true)
}

func startCandidateOn(t *testing.T, s *memStore, id string, h *history, mod func(*Config), watching bool) *candidate {
	t.Helper()
	v := &view{s: s}
	var store LeaseStore = v
	if watching {
		store = watchingView{v}
	}
	cfg := Config{
		Lock: testLock, Identity: id,
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
	}
	if h != nil {
		cfg.Callbacks = h.callbacks(id)
	}
	if mod != nil {
		mod(&cfg)
	}
	e, err := New(store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	c := &candidate{e: e, v: v, cancel: cancel, err: make(chan error, 1)}
	go func() { c.err <- e.Run(ctx) }()
	return c
}

func (c *candidate) stop(t *testing.T) error {
	t.Helper()
	c.cancel()
	return <-c.err
}

func TestSingleCandidateAcquiresAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newMemStore()
		var newLeaders []string
		c := startCandidate(t, s, "a", nil, func(cfg *Config) {
			cfg.Callbacks.OnNewLeader = func(id string) { newLeaders = append(newLeaders, id) }
		})
		synctest.Wait()
		if !c.e.IsLeader() || c.e.Leader() != "a" || c.e.State() != Leading {
			t.Fatalf("IsLeader=%v Leader=%q State=%v, want true, a, Leading", c.e.IsLeader(), c.e.Leader(), c.e.State())
		}
		if got := s.holder(testLock); got != "a" {
			t.Fatalf("lease holder %q, want a", got)
		}
		time.Sleep(time.Minute) // a minute of renewals
		if !c.e.IsLeader() {
			t.Fatal("leader stopped leading while renewing")
		}
		if err := c.stop(t); err != nil {
			t.Fatalf("Run = %v, want nil after cancel", err)
		}
		if c.e.IsLeader() || c.e.State() != Stopped {
			t.Fatalf("after stop: IsLeader=%v State=%v", c.e.IsLeader(), c.e.State())
		}
		if !slices.Equal(newLeaders, []string{"a"}) {
			t.Fatalf("OnNewLeader calls %v, want [a]", newLeaders)
		}
	})
}

func TestSecondCandidateWaitsForExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newMemStore()
		h := &history{}
		a := startCandidate(t, s, "a", h, nil)
		synctest.Wait()
		time.Sleep(time.Second)
		b := startCandidate(t, s, "b", h, nil)
		time.Sleep(30 * time.Second)
		if b.e.IsLeader() || b.e.Leader() != "a" || b.e.State() != Following {
			t.Fatalf("b: IsLeader=%v Leader=%q State=%v while a renews", b.e.IsLeader(), b.e.Leader(), b.e.State())
		}
		// a dies without releasing: its network is cut, then it is cancelled.
		a.v.set(netFail)
		cut := time.Now()
		if err := a.stop(t); err != nil {
			t.Fatalf("a.Run = %v", err)
		}
		for !b.e.IsLeader() {
			time.Sleep(100 * time.Millisecond)
		}
		took := time.Since(cut)
		// b saw a's last renewal at most RetryPeriod after it was sent, and
		// waits a full LeaseDuration from then.
		if took > 15*time.Second+2*time.Second || took < 15*time.Second-2*time.Second {
			t.Fatalf("b took over %v after a stopped renewing, want LeaseDuration±RetryPeriod", took)
		}
		b.stop(t)
		checkNoOverlap(t, h.terms())
	})
}

func TestLeaderThatCannotRenewStopsBeforeOthersMayTakeOver(t *testing.T) {
	for _, mode := range []netMode{netFail, netHang} {
		t.Run(map[netMode]string{netFail: "store calls fail", netHang: "store calls hang"}[mode], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newMemStore()
				h := &history{}
				a := startCandidate(t, s, "a", h, nil)
				synctest.Wait()
				b := startCandidate(t, s, "b", h, nil)
				time.Sleep(7 * time.Second)
				a.v.set(mode)
				cut := time.Now()
				err := <-a.err
				stopped := time.Now()
				var lost *LostError
				if !errors.As(err, &lost) || !errors.Is(err, ErrLeaseLost) {
					t.Fatalf("a.Run = %v, want a *LostError", err)
				}
				if a.e.IsLeader() {
					t.Fatal("a still claims leadership")
				}
				if d := stopped.Sub(cut); d > 10*time.Second {
					t.Fatalf("a stopped %v after its last possible renewal, want within RenewDeadline", d)
				}
				for !b.e.IsLeader() {
					time.Sleep(100 * time.Millisecond)
				}
				b.stop(t)
				terms := h.terms()
				if len(terms) != 2 || terms[0].who != "a" || terms[1].who != "b" {
					t.Fatalf("terms %v, want a then b", terms)
				}
				if gap := terms[1].start.Sub(terms[0].stop); gap < 15*time.Second-10*time.Second {
					t.Fatalf("b started %v after a stopped, want at least LeaseDuration-RenewDeadline", gap)
				}
				checkNoOverlap(t, terms)
			})
		})
	}
}

func TestReleaseOnCancelHandsOverAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newMemStore()
		h := &history{}
		release := func(c *Config) { c.ReleaseOnCancel = true }
		a := startCandidate(t, s, "a", h, release)
		synctest.Wait()
		b := startCandidate(t, s, "b", h, release)
		time.Sleep(20 * time.Second)
		cancelled := time.Now()
		if err := a.stop(t); err != nil {
			t.Fatalf("a.Run = %v", err)
		}
		if got := s.holder(testLock); got != "" && got != "b" {
			t.Fatalf("after release the holder is %q", got)
		}
		for !b.e.IsLeader() {
			time.Sleep(100 * time.Millisecond)
		}
		if took := time.Since(cancelled); took > 2*time.Second+100*time.Millisecond {
			t.Fatalf("b took over %v after a released, want within RetryPeriod", took)
		}
		b.stop(t)
		checkNoOverlap(t, h.terms())
	})
}

func TestReleaseWaitsForTheLeadingCallback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newMemStore()
		var holderAtReturn string
		a := startCandidate(t, s, "a", nil, func(c *Config) {
			c.ReleaseOnCancel = true
			c.Callbacks.OnStartedLeading = func(ctx context.Context) {
				<-ctx.Done()
				time.Sleep(3 * time.Second) // winding down
				holderAtReturn = s.holder(testLock)
			}
		})
		synctest.Wait()
		a.stop(t)
		if holderAtReturn != "a" {
			t.Fatalf("lease holder while the callback wound down = %q, want a (not yet released)", holderAtReturn)
		}
		if got := s.holder(testLock); got != "" {
			t.Fatalf("holder after Run = %q, want released", got)
		}
	})
}

func TestConflictingWriteIsReReadAndRenewed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newMemStore()
		h := &history{}
		a := startCandidate(t, s, "a", h, nil)
		synctest.Wait()
		for range 5 {
			s.touch(testLock) // another writer: a's next renewal conflicts
			time.Sleep(2 * time.Second)
		}
		synctest.Wait()
		if !a.e.IsLeader() {
			t.Fatal("a lost leadership over conflicts on a lease it still holds")
		}
		a.stop(t)
		if n := len(h.terms()); n != 1 {
			t.Fatalf("%d terms, want 1", n)
		}
	})
}

func TestConcurrentClaimsHaveOneWinner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newMemStore()
		h := &history{}
		var cs []*candidate
		for i := range 5 {
			cs = append(cs, startCandidate(t, s, fmt.Sprint("c", i), h, nil))
		}
		synctest.Wait()
		leaders := 0
		for _, c := range cs {
			if c.e.IsLeader() {
				leaders++
			}
		}
		if leaders != 1 {
			t.Fatalf("%d leaders, want 1", leaders)
		}
		for _, c := range cs {
			c.stop(t)
		}
		checkNoOverlap(t, h.terms())
	})
}

func TestDeletedLeaseEndsTheTerm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newMemStore()
		a := startCandidate(t, s, "a", nil, nil)
		synctest.Wait()
		s.delete(testLock)
		err := <-a.err
		if !errors.Is(err, ErrLeaseLost) || !errors.Is(err, errLeaseDeleted) {
			t.Fatalf("Run = %v, want lost because the lease was deleted", err)
		}
	})
}

func TestRunTwiceIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := startCandidate(t, newMemStore(), "a", nil, nil)
		synctest.Wait()
		if err := a.e.Run(t.Context()); !errors.Is(err, ErrRunning) {
			t.Fatalf("second Run = %v, want ErrRunning", err)
		}
		a.stop(t)
	})
}

type gauge struct {
	mu  sync.Mutex
	set []bool
}

func (g *gauge) SetLeading(lock types.NamespacedName, leading bool) {
	g.mu.Lock()
	g.set = append(g.set, leading)
	g.mu.Unlock()
}

func TestMetricsFollowTheTerm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &gauge{}
		a := startCandidate(t, newMemStore(), "a", nil, func(c *Config) { c.Metrics = g })
		synctest.Wait()
		a.stop(t)
		if !slices.Equal(g.set, []bool{false, true, false}) {
			t.Fatalf("SetLeading calls %v, want [false true false]", g.set)
		}
	})
}

// TestThreeCandidatesNeverOverlap runs three candidates on one store for a
// long simulated time while their connections randomly fail, hang, slow
// down and recover, and candidates that lose restart. No two terms may
// overlap, and someone must lead most of the time.
func TestThreeCandidatesNeverOverlap(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 42))
				s := newMemStore()
				h := &history{}
				// Short leases, on purpose: more terms and hand-overs
				// in the simulated 10 minutes. Fake time: no real wait.
				short := func(c *Config) {
					c.LeaseDuration, c.RenewDeadline, c.RetryPeriod = 4*time.Second, 3*time.Second, 500*time.Millisecond
				}
				var mu sync.Mutex
				cs := make([]*candidate, 3)
				gen := 0
				for i := range cs {
					cs[i] = startCandidate(t, s, fmt.Sprint("c", i, "-", gen), h, short)
				}
				end := time.Now().Add(10 * time.Minute)
				for time.Now().Before(end) {
					time.Sleep(time.Duration(rng.IntN(3000)) * time.Millisecond)
					mu.Lock()
					i := rng.IntN(3)
					c := cs[i]
					select {
					case <-c.err: // lost: restart under a new identity
						gen++
						cs[i] = startCandidate(t, s, fmt.Sprint("c", i, "-", gen), h, short)
					default:
						c.v.mu.Lock()
						c.v.mode = netMode(rng.IntN(3))
						if rng.IntN(2) == 0 {
							c.v.mode = netUp
						}
						c.v.latency = time.Duration(rng.IntN(1500)) * time.Millisecond
						c.v.mu.Unlock()
					}
					mu.Unlock()
				}
				for _, c := range cs {
					c.v.set(netUp)
					c.cancel()
				}
				synctest.Wait()
				terms := h.terms()
				if len(terms) < 3 {
					t.Fatalf("only %d terms in 10 minutes of chaos", len(terms))
				}
				checkNoOverlap(t, terms)
			})
		})
	}
}
