package leaderelection

import (
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The election core is a deterministic state machine: step takes the current
// time and what just happened (a timer fired, a store call returned, the
// context ended) and returns the one thing to do next plus the leadership
// changes to announce. It does no I/O and reads no clock, so tests drive it
// with plain time values. The Elector performs its outputs.

type inputKind int

const (
	inTick   inputKind = iota // the wait of an opWait output is over
	inRead                    // an opGet returned
	inWrite                   // an opCreate, opUpdate or opRelease returned
	inCancel                  // the Run context ended
)

// input is what happened since the last output.
type input struct {
	kind  inputKind
	lease *coordinationv1.Lease // result of a successful read or write
	err   error                 // error of a read or write
}

type opKind int

const (
	opWait    opKind = iota // wait until output.at, then step with inTick
	opGet                   // read the lease
	opCreate                // create output.lease
	opUpdate                // update output.lease (resourceVersion guarded)
	opRelease               // wait for OnStartedLeading, then update output.lease
	opStop                  // Run returns output.err
)

// output is the next thing to do.
type output struct {
	op    opKind
	lease *coordinationv1.Lease // body of opCreate, opUpdate, opRelease
	// at is the wake-up time of opWait, and the time by which an opGet,
	// opCreate or opUpdate must be abandoned.
	at  time.Time
	err error // result of opStop

	started bool      // a term began; it ends at termEnd unless renewed
	renewed bool      // the term now ends at termEnd
	stopped bool      // the term ended (call OnStoppedLeading)
	termEnd time.Time // with started or renewed

	leaderChanged bool   // the holder seen in the lease is now leader
	leader        string // "" when the lease has no holder
}

// params are the fixed inputs of a machine.
type params struct {
	identity      string
	leaseDuration time.Duration
	renewDeadline time.Duration
	retryPeriod   time.Duration
	release       bool
	lock          types.NamespacedName
}

type machine struct {
	p     params
	state State

	// observed is the last lease record read or written; its
	// resourceVersion guards the next write.
	observed *coordinationv1.Lease
	// observedAt is the local time at which observed last changed: followers
	// measure expiry from it, never from the timestamps written in the lease.
	observedAt time.Time
	// leader is the holder last announced.
	leader string
	// renewedAt is when the write that began or last extended the current
	// term was sent. The term ends at renewedAt + renewDeadline.
	renewedAt time.Time
	// sentAt is when the write in flight was sent.
	sentAt time.Time
	// lastErr is the last store error, kept as the cause of a lost term.
	lastErr error
}

func newMachine(p params) *machine { return &machine{p: p, state: Acquiring} }

func (m *machine) termEnd() time.Time { return m.renewedAt.Add(m.p.renewDeadline) }

// start returns the first output: read the lease.
func (m *machine) start(now time.Time) output {
	return m.get(now)
}

// step advances the machine.
func (m *machine) step(now time.Time, in input) output {
	switch m.state {
	case Stopped:
		return output{op: opStop}
	case Releasing:
		// Only the release write is outstanding; whatever it returned, stop.
		m.state = Stopped
		return output{op: opStop}
	}
	if in.kind == inCancel {
		return m.cancel(now)
	}
	if m.state == Leading && !now.Before(m.termEnd()) {
		if in.kind == inWrite && in.err != nil {
			m.lastErr = in.err
		}
		return m.lose(m.lastErr, "")
	}
	switch in.kind {
	case inTick:
		if m.state == Leading {
			return m.write(now, opUpdate, m.renewal(now))
		}
		return m.get(now)
	case inRead:
		return m.read(now, in.lease, in.err)
	case inWrite:
		return m.wrote(now, in.lease, in.err)
	}
	return output{op: opStop}
}

// expire ends a term whose deadline timer fired before the machine saw the
// deadline pass (the two race by nanoseconds).
func (m *machine) expire() output {
	if m.state != Leading {
		return output{op: opStop}
	}
	return m.lose(m.lastErr, "")
}

func (m *machine) cancel(now time.Time) output {
	if m.state != Leading {
		m.state = Stopped
		return output{op: opStop}
	}
	if !m.p.release {
		m.state = Stopped
		return output{op: opStop, stopped: true}
	}
	m.state = Releasing
	return output{op: opRelease, lease: m.released(now), stopped: true}
}

func (m *machine) lose(cause error, holder string) output {
	m.state = Stopped
	err := &LostError{Holder: holder, Cause: cause}
	err.Lease = m.p.lock
	return output{op: opStop, stopped: true, err: err}
}

// deadline is the time by which a store call sent now must be abandoned.
func (m *machine) deadline(now time.Time) time.Time {
	if m.state == Leading {
		return m.termEnd()
	}
	return now.Add(m.p.renewDeadline)
}

func (m *machine) get(now time.Time) output {
	return output{op: opGet, at: m.deadline(now)}
}

func (m *machine) write(now time.Time, op opKind, lease *coordinationv1.Lease) output {
	m.sentAt = now
	return output{op: op, lease: lease, at: m.deadline(now)}
}

// retry waits one RetryPeriod, but never past the end of a term.
func (m *machine) retry(now time.Time) output {
	at := now.Add(m.p.retryPeriod)
	if m.state == Leading && m.termEnd().Before(at) {
		at = m.termEnd()
	}
	return output{op: opWait, at: at}
}

func (m *machine) read(now time.Time, lease *coordinationv1.Lease, err error) output {
	if err != nil {
		if !apierrors.IsNotFound(err) {
			m.lastErr = err
			return m.retry(now)
		}
		if m.state == Leading {
			return m.lose(errLeaseDeleted, "")
		}
		m.observed = nil
		m.state = Acquiring
		return m.write(now, opCreate, m.claim(now))
	}
	out := output{}
	m.observe(now, lease, &out)
	holder := holderOf(lease)
	switch {
	case m.state == Leading && holder == m.p.identity:
		// A conflict on renewal, and the lease is still ours: retry with the
		// fresh resourceVersion.
		return merge(out, m.write(now, opUpdate, m.renewal(now)))
	case m.state == Leading:
		lost := m.lose(nil, holder)
		return merge(out, lost)
	case holder == "" || holder == m.p.identity || !now.Before(m.expiry()):
		m.state = Acquiring
		return merge(out, m.write(now, opUpdate, m.claim(now)))
	}
	m.state = Following
	at := now.Add(m.p.retryPeriod)
	if exp := m.expiry(); exp.Before(at) {
		at = exp
	}
	return merge(out, output{op: opWait, at: at})
}

func (m *machine) wrote(now time.Time, lease *coordinationv1.Lease, err error) output {
	if err != nil {
		switch {
		case apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err):
			// Someone else wrote the lease since we read it: read it again.
			return m.get(now)
		case apierrors.IsNotFound(err) && m.state == Leading:
			return m.lose(errLeaseDeleted, "")
		case apierrors.IsNotFound(err):
			return m.get(now)
		}
		m.lastErr = err
		return m.retry(now)
	}
	out := output{}
	m.observe(now, lease, &out)
	if m.state == Leading {
		m.renewedAt = m.sentAt
		out.renewed, out.termEnd = true, m.termEnd()
		return merge(out, m.retry(now))
	}
	if !now.Before(m.sentAt.Add(m.p.renewDeadline)) {
		// The claim succeeded too late to lead on it: the term it began is
		// already over. Renew at once and lead on that renewal.
		return merge(out, m.write(now, opUpdate, m.renewal(now)))
	}
	m.state = Leading
	m.renewedAt = m.sentAt
	m.lastErr = nil
	out.started, out.termEnd = true, m.termEnd()
	return merge(out, m.retry(now))
}

// observe records lease as the latest record, and notes when it changed.
func (m *machine) observe(now time.Time, lease *coordinationv1.Lease, out *output) {
	if m.observed == nil || m.observed.ResourceVersion != lease.ResourceVersion ||
		holderOf(m.observed) != holderOf(lease) || !renewTimeOf(m.observed).Equal(renewTimeOf(lease)) {
		m.observedAt = now
	}
	m.observed = lease
	if h := holderOf(lease); h != m.leader {
		m.leader = h
		out.leaderChanged, out.leader = true, h
	}
}

// expiry is when the observed lease expires by this candidate's clock.
func (m *machine) expiry() time.Time {
	d := m.p.leaseDuration
	if s := m.observed.Spec.LeaseDurationSeconds; s != nil && *s > 0 {
		d = time.Duration(*s) * time.Second
	}
	return m.observedAt.Add(d)
}

// claim returns the lease record that makes this candidate the holder.
func (m *machine) claim(now time.Time) *coordinationv1.Lease {
	var l *coordinationv1.Lease
	if m.observed == nil {
		l = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: m.p.lock.Namespace, Name: m.p.lock.Name}}
	} else {
		l = m.observed.DeepCopy()
	}
	prev := holderOf(l)
	t := metav1.NewMicroTime(now)
	l.Spec.HolderIdentity = ptr(m.p.identity)
	l.Spec.LeaseDurationSeconds = ptr(durationSeconds(m.p.leaseDuration))
	l.Spec.RenewTime = &t
	if prev != m.p.identity || l.Spec.AcquireTime == nil {
		l.Spec.AcquireTime = &t
	}
	if m.observed != nil && prev != m.p.identity {
		l.Spec.LeaseTransitions = ptr(int32Of(l.Spec.LeaseTransitions) + 1)
	} else if l.Spec.LeaseTransitions == nil {
		l.Spec.LeaseTransitions = ptr(int32(0))
	}
	return l
}

// renewal returns the observed record with a fresh renewTime.
func (m *machine) renewal(now time.Time) *coordinationv1.Lease {
	l := m.observed.DeepCopy()
	t := metav1.NewMicroTime(now)
	l.Spec.RenewTime = &t
	l.Spec.LeaseDurationSeconds = ptr(durationSeconds(m.p.leaseDuration))
	return l
}

// released returns the observed record with no holder and a one-second
// duration, which any candidate may take at once.
func (m *machine) released(now time.Time) *coordinationv1.Lease {
	return releasedLease(m.observed, now)
}

// releasedLease returns a copy of l with no holder and a one-second
// duration.
func releasedLease(observed *coordinationv1.Lease, now time.Time) *coordinationv1.Lease {
	l := observed.DeepCopy()
	t := metav1.NewMicroTime(now)
	l.Spec.HolderIdentity = ptr("")
	l.Spec.LeaseDurationSeconds = ptr(int32(1))
	l.Spec.RenewTime = &t
	l.Spec.AcquireTime = &t
	return l
}

// merge returns next with the announcements of out (a leader change, a
// term begun or extended) added.
func merge(out, next output) output {
	next.leaderChanged, next.leader = out.leaderChanged, out.leader
	next.started, next.renewed, next.termEnd = out.started, out.renewed, out.termEnd
	return next
}

func holderOf(l *coordinationv1.Lease) string {
	if l == nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func renewTimeOf(l *coordinationv1.Lease) time.Time {
	if l.Spec.RenewTime == nil {
		return time.Time{}
	}
	return l.Spec.RenewTime.Time
}

func int32Of(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// durationSeconds rounds d up to whole seconds.
func durationSeconds(d time.Duration) int32 {
	return int32((d + time.Second - 1) / time.Second)
}

func ptr[T any](v T) *T { return &v }
