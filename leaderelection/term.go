package leaderelection

import (
	"context"
	"sync"
	"time"

	"github.com/kubego/kubego/clock"
)

// term is one period of leadership. Its end is enforced by a timer of its
// own, independent of the election goroutine: even when a store call hangs
// or a callback blocks, the term's context is cancelled at its deadline.
type term struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when OnStartedLeading has returned

	mu    sync.Mutex
	timer clock.Timer
	ended bool
	end   time.Time // when the term ends unless renewed first
}

func (t *term) isEnded() bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ended
}

// beginTerm starts a term ending at end and runs OnStartedLeading.
func (e *Elector) beginTerm(ctx context.Context, end time.Time) *term {
	lctx, cancel := context.WithCancel(ctx)
	t := &term{cancel: cancel, done: make(chan struct{}), end: end}
	lctx = context.WithValue(lctx, termKey{}, termWindow{t: t, clock: e.cfg.Clock})
	e.leading.Store(true)
	if e.cfg.Metrics != nil {
		e.cfg.Metrics.SetLeading(e.cfg.Lock, true)
	}
	t.mu.Lock()
	t.timer = e.cfg.Clock.AfterFunc(end.Sub(e.cfg.Clock.Now()), func() { e.endTerm(t) })
	t.mu.Unlock()
	go func() {
		defer close(t.done)
		if f := e.cfg.Callbacks.OnStartedLeading; f != nil {
			f(lctx)
		}
	}()
	return t
}

// extendTerm moves the end of t to end, unless t already ended.
func (e *Elector) extendTerm(t *term, end time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return
	}
	t.timer.Stop()
	t.end = end
	t.timer = e.cfg.Clock.AfterFunc(end.Sub(e.cfg.Clock.Now()), func() { e.endTerm(t) })
}

// endTerm cancels t's context; it may be called more than once.
func (e *Elector) endTerm(t *term) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return
	}
	t.ended = true
	if t.timer != nil {
		t.timer.Stop()
	}
	e.leading.Store(false)
	t.cancel()
	if e.cfg.Metrics != nil {
		e.cfg.Metrics.SetLeading(e.cfg.Lock, false)
	}
}
