package leaderelection

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// A follower whose store watches the lease takes a released lease in the
// instant it is released, not at its next RetryPeriod. Production
// durations, in fake time.
func TestWatchingFollowerTakesAReleasedLeaseAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newMemStore()
		h := &history{}
		release := func(c *Config) { c.ReleaseOnCancel = true }
		a := startWatchingCandidate(t, s, "a", h, release)
		synctest.Wait()
		b := startWatchingCandidate(t, s, "b", h, release)
		// Odd offset: the release falls between two of b's reads.
		time.Sleep(20*time.Second + 700*time.Millisecond)
		cancelled := time.Now()
		if err := a.stop(t); err != nil {
			t.Fatalf("a.Run = %v", err)
		}
		synctest.Wait()
		if !b.e.IsLeader() {
			t.Fatalf("b does not lead once a released the lease (state %v)", b.e.State())
		}
		// Fake time: the store answers at once, so the hand-over takes no
		// time at all; a RetryPeriod wait would show as 1.3 s here.
		if took := time.Since(cancelled); took != 0 {
			t.Fatalf("b took over %v after a released, want at once", took)
		}
		b.stop(t)
		checkNoOverlap(t, h.terms())
	})
}

// A follower that watches the lease sees each renewal when it is written,
// so a leader that dies is replaced exactly LeaseDuration after its last
// renewal, not up to a RetryPeriod later.
func TestWatchingFollowerTakesOverLeaseDurationAfterTheLastRenewal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newMemStore()
		h := &history{}
		a := startWatchingCandidate(t, s, "a", h, nil)
		synctest.Wait()
		time.Sleep(300 * time.Millisecond)
		b := startWatchingCandidate(t, s, "b", h, nil)
		time.Sleep(30*time.Second + 900*time.Millisecond)
		// a dies without releasing: its network is cut, then it stops.
		a.v.set(netFail)
		last := s.lastWriteBy("a")
		if err := a.stop(t); err != nil {
			t.Fatalf("a.Run = %v", err)
		}
		for !b.e.IsLeader() {
			time.Sleep(10 * time.Millisecond)
		}
		took := time.Since(last)
		if took < 15*time.Second || took > 15*time.Second+10*time.Millisecond {
			t.Fatalf("b took over %v after a's last renewal, want LeaseDuration (15s)", took)
		}
		b.stop(t)
		checkNoOverlap(t, h.terms())
	})
}

// A lease watch that fails leaves the follower reading every RetryPeriod:
// a released lease is still taken within one.
func TestFailingLeaseWatchFallsBackToReads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newMemStore()
		release := func(c *Config) { c.ReleaseOnCancel = true }
		a := startCandidate(t, s, "a", nil, release)
		synctest.Wait()
		v := &view{s: s}
		e, err := New(brokenWatch{v}, Config{Lock: testLock, Identity: "b", ReleaseOnCancel: true})
		if err != nil {
			t.Fatal(err)
		}
		b := &candidate{e: e, v: v, err: make(chan error, 1)}
		ctx, cancel := context.WithCancel(t.Context())
		b.cancel = cancel
		go func() { b.err <- e.Run(ctx) }()
		time.Sleep(20*time.Second + 500*time.Millisecond)
		cancelled := time.Now()
		if err := a.stop(t); err != nil {
			t.Fatalf("a.Run = %v", err)
		}
		for !b.e.IsLeader() {
			time.Sleep(10 * time.Millisecond)
		}
		if took := time.Since(cancelled); took > 2*time.Second+20*time.Millisecond {
			t.Fatalf("b took over %v after a released, want within RetryPeriod", took)
		}
		b.stop(t)
	})
}

// brokenWatch is a store whose lease watch always fails at once.
type brokenWatch struct{ *view }

func (brokenWatch) WatchLease(context.Context, types.NamespacedName, func()) error {
	return errors.New("watch refused")
}
