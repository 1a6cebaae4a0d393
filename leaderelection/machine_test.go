package leaderelection

import (
	"errors"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func testParams() params {
	return params{identity: "me", leaseDuration: 15 * time.Second, renewDeadline: 10 * time.Second,
		retryPeriod: 2 * time.Second, lock: types.NamespacedName{Namespace: "ns", Name: "lock"}}
}

func leaseHeldBy(holder, rv string, renewed time.Time) *coordinationv1.Lease {
	rt := metav1.NewMicroTime(renewed)
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "lock", ResourceVersion: rv},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: ptr(int32(15)), RenewTime: &rt},
	}
}

func at(d time.Duration) time.Time { return t0.Add(d) }

func TestMachineFollowerMeasuresExpiryFromItsOwnObservation(t *testing.T) {
	m := newMachine(testParams())
	m.start(at(0))
	// The record says it was renewed an hour ago: that is not trusted.
	out := m.step(at(0), input{kind: inRead, lease: leaseHeldBy("other", "1", at(-time.Hour))})
	if m.state != Following || out.op != opWait || !out.at.Equal(at(2*time.Second)) {
		t.Fatalf("state %v op %v at %v, want Following waiting one RetryPeriod", m.state, out.op, out.at)
	}
	if !out.leaderChanged || out.leader != "other" {
		t.Fatalf("leader change not announced: %+v", out)
	}
	// Unchanged at 14s: still following, waking exactly at expiry.
	m.step(at(14*time.Second), input{kind: inTick})
	out = m.step(at(14*time.Second), input{kind: inRead, lease: leaseHeldBy("other", "1", at(-time.Hour))})
	if m.state != Following || !out.at.Equal(at(15*time.Second)) {
		t.Fatalf("state %v wake %v, want Following until 15s", m.state, out.at)
	}
	// Unchanged at 15s: expired, claim it.
	m.step(at(15*time.Second), input{kind: inTick})
	out = m.step(at(15*time.Second), input{kind: inRead, lease: leaseHeldBy("other", "1", at(-time.Hour))})
	if out.op != opUpdate || holderOf(out.lease) != "me" || out.lease.ResourceVersion != "1" {
		t.Fatalf("op %v lease %v, want an update claiming rv 1", out.op, out.lease)
	}
	if got := int32Of(out.lease.Spec.LeaseTransitions); got != 1 {
		t.Fatalf("transitions %d, want 1", got)
	}
}

func TestMachineRecordChangeRestartsExpiry(t *testing.T) {
	m := newMachine(testParams())
	m.start(at(0))
	m.step(at(0), input{kind: inRead, lease: leaseHeldBy("other", "1", at(0))})
	m.step(at(10*time.Second), input{kind: inTick})
	m.step(at(10*time.Second), input{kind: inRead, lease: leaseHeldBy("other", "2", at(10*time.Second))})
	m.step(at(16*time.Second), input{kind: inTick})
	out := m.step(at(16*time.Second), input{kind: inRead, lease: leaseHeldBy("other", "2", at(10*time.Second))})
	if m.state != Following || !out.at.Equal(at(18*time.Second)) {
		t.Fatalf("state %v wake %v; a renewal seen at 10s must hold until 25s", m.state, out.at)
	}
}

func TestMachineReleasedLeaseIsClaimedAtOnce(t *testing.T) {
	m := newMachine(testParams())
	m.start(at(0))
	out := m.step(at(0), input{kind: inRead, lease: leaseHeldBy("", "7", at(0))})
	if out.op != opUpdate || holderOf(out.lease) != "me" {
		t.Fatalf("op %v, want an immediate claim", out.op)
	}
}

func TestMachineMissingLeaseIsCreated(t *testing.T) {
	m := newMachine(testParams())
	m.start(at(0))
	out := m.step(at(0), input{kind: inRead, err: notFound()})
	if out.op != opCreate || holderOf(out.lease) != "me" || out.lease.Name != "lock" || out.lease.Namespace != "ns" {
		t.Fatalf("op %v lease %v, want a create of ns/lock held by me", out.op, out.lease)
	}
}

// lead brings a machine to Leading with a claim sent at at(0).
func lead(t *testing.T) *machine {
	t.Helper()
	m := newMachine(testParams())
	m.start(at(0))
	out := m.step(at(0), input{kind: inRead, err: notFound()})
	out = m.step(at(time.Second), input{kind: inWrite, lease: stored(out.lease, "1")})
	if m.state != Leading || !out.started || !out.termEnd.Equal(at(10*time.Second)) {
		t.Fatalf("state %v started %v termEnd %v, want Leading until 10s (claim sent at 0)", m.state, out.started, out.termEnd)
	}
	return m
}

func stored(l *coordinationv1.Lease, rv string) *coordinationv1.Lease {
	l = l.DeepCopy()
	l.ResourceVersion = rv
	return l
}

func TestMachineLeaderTermEndsAtRenewDeadline(t *testing.T) {
	m := lead(t)
	now := at(time.Second)
	var out output
	for now.Before(at(10 * time.Second)) {
		out = m.step(now, input{kind: inTick})
		if out.op != opUpdate || !out.at.Equal(at(10*time.Second)) {
			t.Fatalf("at %v: op %v deadline %v, want a renewal abandoned at the term's end", now, out.op, out.at)
		}
		out = m.step(now, input{kind: inWrite, err: errNetwork})
		if out.op != opWait || out.at.After(at(10*time.Second)) {
			t.Fatalf("retry waits until %v, past the term's end", out.at)
		}
		now = out.at
	}
	out = m.step(now, input{kind: inTick})
	var lost *LostError
	if m.state != Stopped || !out.stopped || !errors.As(out.err, &lost) || !errors.Is(out.err, errNetwork) {
		t.Fatalf("state %v stopped %v err %v, want Stopped with a LostError caused by the network", m.state, out.stopped, out.err)
	}
}

func TestMachineRenewalExtendsTermFromItsSendTime(t *testing.T) {
	m := lead(t)
	out := m.step(at(3*time.Second), input{kind: inTick})
	out = m.step(at(5*time.Second), input{kind: inWrite, lease: stored(out.lease, "2")})
	if !out.renewed || !out.termEnd.Equal(at(13*time.Second)) {
		t.Fatalf("renewed %v termEnd %v, want 13s (sent at 3s, not answered at 5s)", out.renewed, out.termEnd)
	}
}

func TestMachineLeaderLosesToAnotherHolder(t *testing.T) {
	m := lead(t)
	out := m.step(at(3*time.Second), input{kind: inTick})
	out = m.step(at(3*time.Second), input{kind: inWrite, err: conflict()})
	if out.op != opGet {
		t.Fatalf("op %v after a conflict, want a re-read", out.op)
	}
	out = m.step(at(3*time.Second), input{kind: inRead, lease: leaseHeldBy("other", "9", at(3*time.Second))})
	var lost *LostError
	if !out.stopped || !errors.As(out.err, &lost) || lost.Holder != "other" || !out.leaderChanged {
		t.Fatalf("out %+v, want lost to other", out)
	}
}

func TestMachineLateClaimIsRenewedBeforeLeading(t *testing.T) {
	m := newMachine(testParams())
	m.start(at(0))
	out := m.step(at(0), input{kind: inRead, err: notFound()})
	out = m.step(at(11*time.Second), input{kind: inWrite, lease: stored(out.lease, "1")})
	if m.state == Leading || out.started || out.op != opUpdate {
		t.Fatalf("state %v op %v: a claim answered after RenewDeadline must be renewed before leading", m.state, out.op)
	}
	out = m.step(at(12*time.Second), input{kind: inWrite, lease: stored(out.lease, "2")})
	if !out.started || !out.termEnd.Equal(at(21*time.Second)) {
		t.Fatalf("started %v termEnd %v, want a term from 11s", out.started, out.termEnd)
	}
}

func TestMachineCancel(t *testing.T) {
	tests := []struct {
		name    string
		release bool
		want    opKind
	}{
		{"leader without release stops", false, opStop},
		{"leader with release writes the lease back", true, opRelease},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := lead(t)
			m.p.release = tt.release
			out := m.step(at(2*time.Second), input{kind: inCancel})
			if out.op != tt.want || !out.stopped || out.err != nil {
				t.Fatalf("op %v stopped %v err %v", out.op, out.stopped, out.err)
			}
			if tt.release && (holderOf(out.lease) != "" || out.lease.ResourceVersion != "1") {
				t.Fatalf("release body %v, want no holder guarded by rv 1", out.lease)
			}
		})
	}
	t.Run("follower stops without announcing", func(t *testing.T) {
		m := newMachine(testParams())
		m.start(at(0))
		out := m.step(at(0), input{kind: inCancel})
		if out.op != opStop || out.stopped {
			t.Fatalf("op %v stopped %v", out.op, out.stopped)
		}
	})
}

func TestConfigValidation(t *testing.T) {
	ok := Config{Lock: testLock, Identity: "a"}
	tests := []struct {
		name  string
		mod   func(*Config)
		field string
	}{
		{"zero durations take the defaults", func(*Config) {}, ""},
		{"missing lease name is refused", func(c *Config) { c.Lock.Name = "" }, "Lock.Name"},
		{"missing namespace is refused", func(c *Config) { c.Lock.Namespace = "" }, "Lock.Namespace"},
		{"invalid lease name is refused", func(c *Config) { c.Lock.Name = "Not_A_Name" }, "Lock.Name"},
		{"missing identity is refused", func(c *Config) { c.Identity = "" }, "Identity"},
		{"renew deadline equal to lease duration is refused", func(c *Config) { c.LeaseDuration, c.RenewDeadline = 5*time.Second, 5*time.Second }, "RenewDeadline"},
		{"retry period longer than renew deadline is refused", func(c *Config) { c.RetryPeriod = 11 * time.Second }, "RetryPeriod"},
		{"negative duration is refused", func(c *Config) { c.RetryPeriod = -time.Second }, "LeaseDuration, RenewDeadline, RetryPeriod"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			tt.mod(&c)
			_, err := New(newMemStore(), c)
			var ce *ConfigError
			switch {
			case tt.field == "" && err != nil:
				t.Fatalf("New = %v", err)
			case tt.field != "" && (!errors.As(err, &ce) || ce.Field != tt.field || !errors.Is(err, ErrInvalidConfig)):
				t.Fatalf("New = %v, want a ConfigError on %s", err, tt.field)
			}
		})
	}
	if _, err := New(nil, ok); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("New(nil store) = %v", err)
	}
}
