package leaderelection

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Elector is one candidate of one election. Create it with New and call Run
// once. IsLeader, Leader and State may be called from any goroutine, at any
// time.
type Elector struct {
	store LeaseStore
	cfg   Config

	ran     atomic.Bool
	leading atomic.Bool

	mu     sync.Mutex
	leader string
	state  State
}

// New returns a candidate for cfg.Lock that reads and writes the lease
// through store. It returns a *ConfigError (wrapping ErrInvalidConfig) when
// cfg is not usable: see Config for the rules.
func New(store LeaseStore, cfg Config) (*Elector, error) {
	if store == nil {
		return nil, &ConfigError{"store", "required"}
	}
	rc, err := cfg.resolved()
	if err != nil {
		return nil, err
	}
	return &Elector{store: store, cfg: rc, state: Acquiring}, nil
}

// IsLeader reports whether this candidate's term is running: it turns true
// just before OnStartedLeading is started and false when the term's context
// is cancelled.
func (e *Elector) IsLeader() bool { return e.leading.Load() }

// Leader returns the holder identity last seen in the lease, this
// candidate's included; "" before the first read, or when the lease has no
// holder.
func (e *Elector) Leader() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.leader
}

// State returns where the candidate stands.
func (e *Elector) State() State {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.state
}

// Run takes part in the election until ctx ends or leadership is lost. It
// returns:
//
//   - nil when ctx ended (after releasing the lease when ReleaseOnCancel is
//     set and this candidate was leading);
//   - a *LostError (wrapping ErrLeaseLost) when this candidate led and its
//     term ended otherwise: it was not renewed within RenewDeadline, another
//     candidate took the lease, or the lease was deleted. The process
//     should then stop the work it did as leader (exiting is the usual
//     answer) rather than run again;
//   - ErrRunning when Run was already called.
//
// Run returns only after OnStartedLeading, if started, has returned. Store
// errors are retried every RetryPeriod and never returned by themselves.
func (e *Elector) Run(ctx context.Context) error {
	if !e.ran.CompareAndSwap(false, true) {
		return ErrRunning
	}
	m := newMachine(params{
		identity:      e.cfg.Identity,
		leaseDuration: e.cfg.LeaseDuration,
		renewDeadline: e.cfg.RenewDeadline,
		retryPeriod:   e.cfg.RetryPeriod,
		release:       e.cfg.ReleaseOnCancel,
		lock:          e.cfg.Lock,
	})
	if e.cfg.Metrics != nil {
		e.cfg.Metrics.SetLeading(e.cfg.Lock, false)
	}
	var t *term
	// changed is told, by the lease watch of a LeaseWatcher store, that
	// the lease may have changed: a candidate that does not lead reads it
	// at once instead of at the end of its wait.
	changed := make(chan struct{}, 1)
	stopWatch := e.watchLease(ctx, changed)
	defer stopWatch()
	out := m.start(e.cfg.Clock.Now())
	for {
		t = e.announce(ctx, m, out, t)
		if out.started {
			stopWatch() // a leader renews on its own schedule
		}
		if out.op != opStop && m.state == Leading && t.isEnded() {
			out = m.expire()
			continue
		}
		if out.op == opStop {
			stopWatch()
			if t != nil {
				<-t.done
			}
			return out.err
		}
		wake := changed
		if m.state == Leading {
			wake = nil
		}
		in := e.perform(ctx, out, t, wake)
		if out.op != opRelease && ctx.Err() != nil {
			in = input{kind: inCancel}
		}
		out = m.step(e.cfg.Clock.Now(), in)
	}
}

// announce applies the leadership changes of out and returns the current
// term.
func (e *Elector) announce(ctx context.Context, m *machine, out output, t *term) *term {
	log := e.cfg.Logger
	if out.stopped && t != nil {
		e.endTerm(t)
		if out.err != nil {
			log.Warn("leader election: leadership lost", "lease", e.cfg.Lock, "identity", e.cfg.Identity, "error", out.err)
		} else {
			log.Info("leader election: stepped down", "lease", e.cfg.Lock, "identity", e.cfg.Identity)
		}
		if f := e.cfg.Callbacks.OnStoppedLeading; f != nil {
			f()
		}
	}
	e.mu.Lock()
	e.state = m.state
	if out.leaderChanged {
		e.leader = out.leader
	}
	e.mu.Unlock()
	if out.leaderChanged && out.leader != "" {
		log.Info("leader election: new leader", "lease", e.cfg.Lock, "leader", out.leader, "identity", e.cfg.Identity)
		if f := e.cfg.Callbacks.OnNewLeader; f != nil {
			f(out.leader)
		}
	}
	switch {
	case out.started:
		log.Info("leader election: acquired lease", "lease", e.cfg.Lock, "identity", e.cfg.Identity)
		t = e.beginTerm(ctx, out.termEnd)
	case out.renewed && t != nil:
		e.extendTerm(t, out.termEnd)
	}
	return t
}

// perform does the I/O or the wait out asks for and returns what happened.
func (e *Elector) perform(ctx context.Context, out output, t *term, wake <-chan struct{}) input {
	switch out.op {
	case opWait:
		return e.wait(ctx, out.at, wake)
	case opGet:
		cctx, cancel := e.until(ctx, out.at)
		l, err := e.store.Get(cctx, e.cfg.Lock)
		cancel()
		e.logCall("get", err)
		return input{kind: inRead, lease: l, err: nilLease(l, err)}
	case opCreate, opUpdate:
		cctx, cancel := e.until(ctx, out.at)
		var l *coordinationv1.Lease
		var err error
		if out.op == opCreate {
			l, err = e.store.Create(cctx, out.lease)
		} else {
			l, err = e.store.Update(cctx, out.lease)
		}
		cancel()
		e.logCall("write", err)
		return input{kind: inWrite, lease: l, err: nilLease(l, err)}
	case opRelease:
		if t != nil {
			<-t.done
		}
		cctx, cancel := e.until(context.WithoutCancel(ctx), e.cfg.Clock.Now().Add(e.cfg.RenewDeadline))
		_, err := e.store.Update(cctx, out.lease)
		if apierrors.IsConflict(err) {
			// A renewal raced the cancellation and moved the lease on:
			// release the current record if it is still ours.
			if cur, gerr := e.store.Get(cctx, e.cfg.Lock); gerr == nil && cur.Spec.HolderIdentity != nil && *cur.Spec.HolderIdentity == e.cfg.Identity {
				_, err = e.store.Update(cctx, releasedLease(cur, e.cfg.Clock.Now()))
			}
		}
		cancel()
		if err != nil {
			e.cfg.Logger.Warn("leader election: release failed; others take over when the lease expires", "lease", e.cfg.Lock, "identity", e.cfg.Identity, "error", err)
		} else {
			e.cfg.Logger.Info("leader election: released lease", "lease", e.cfg.Lock, "identity", e.cfg.Identity)
		}
		return input{kind: inWrite, err: err}
	}
	return input{kind: inCancel}
}

func (e *Elector) logCall(op string, err error) {
	if err == nil {
		return
	}
	level := slog.LevelDebug
	if e.IsLeader() {
		level = slog.LevelWarn
	}
	e.cfg.Logger.Log(context.Background(), level, "leader election: lease "+op+" failed", "lease", e.cfg.Lock, "identity", e.cfg.Identity, "error", err)
}

// errNilLease reports a store that returned neither a lease nor an error.
var errNilLease = errors.New("leaderelection: lease store returned no lease and no error")

func nilLease(l *coordinationv1.Lease, err error) error {
	if err == nil && l == nil {
		return errNilLease
	}
	return err
}

// wait returns inTick at time at, or earlier when wake receives (nil:
// never), or inCancel when ctx ends first.
func (e *Elector) wait(ctx context.Context, at time.Time, wake <-chan struct{}) input {
	d := at.Sub(e.cfg.Clock.Now())
	if d <= 0 {
		return input{kind: inTick}
	}
	fired := make(chan struct{})
	tm := e.cfg.Clock.AfterFunc(d, func() { close(fired) })
	select {
	case <-fired:
		return input{kind: inTick}
	case <-wake:
		tm.Stop()
		return input{kind: inTick}
	case <-ctx.Done():
		tm.Stop()
		return input{kind: inCancel}
	}
}

// watchLease runs the lease watch of a LeaseWatcher store until the
// returned function is called (or ctx ends), sending to changed, without
// blocking, each time the lease may have changed. A watch that ends is
// started again after RetryPeriod. The returned function may be called
// any number of times; it returns once the watch has stopped.
func (e *Elector) watchLease(ctx context.Context, changed chan<- struct{}) func() {
	lw, ok := e.store.(LeaseWatcher)
	if !ok {
		return func() {}
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	notify := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	go func() {
		defer close(done)
		for {
			err := lw.WatchLease(wctx, e.cfg.Lock, notify)
			if wctx.Err() != nil {
				return
			}
			e.cfg.Logger.Debug("leader election: lease watch ended; reading every retry period until it is back", "lease", e.cfg.Lock, "identity", e.cfg.Identity, "error", err)
			if e.wait(wctx, e.cfg.Clock.Now().Add(e.cfg.RetryPeriod), nil).kind == inCancel {
				return
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// until returns a context that ends at time at by the elector's clock.
func (e *Elector) until(ctx context.Context, at time.Time) (context.Context, func()) {
	cctx, cancel := context.WithCancel(ctx)
	tm := e.cfg.Clock.AfterFunc(at.Sub(e.cfg.Clock.Now()), cancel)
	return cctx, func() {
		tm.Stop()
		cancel()
	}
}
