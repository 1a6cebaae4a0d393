package controller

import (
	"context"
	"fmt"
	"reflect"
)

// Channel makes a source of events from outside the cluster (a webhook
// call, a message from another system, a timer): each value received
// from ch enqueues the Requests that mapFn returns for it, at normal
// priority. mapFn runs on the source's goroutine, one value at a time,
// with a context cancelled when the controller stops; it must be quick.
// A nil mapFn is allowed when E is Request: each value is enqueued as
// it is.
//
// The source reads ch from Start until ch is closed or the controller
// stops, whichever comes first; a closed channel ends only the source,
// not the controller. Values sent after the controller stopped are not
// read: a sender that must not block should select on its own context
// too, or use a buffered channel. A Channel source has no informer: it is
// synced at once and absent from SyncStates.
func Channel[E any](ch <-chan E, mapFn func(ctx context.Context, e E) []Request) Source {
	return &channelSource[E]{ch: ch, mapFn: mapFn}
}

type channelSource[E any] struct {
	ch    <-chan E
	mapFn func(ctx context.Context, e E) []Request

	bound  bool
	cancel context.CancelFunc
	done   chan struct{} // closed when the reading goroutine returns
}

func (s *channelSource[E]) String() string {
	return "Channel[" + reflect.TypeFor[E]().String() + "]"
}

func (s *channelSource[E]) clone() source { return nil }

func (s *channelSource[E]) newSource() source { return s }

func (s *channelSource[E]) bind(*binder) error {
	if s.bound {
		return fmt.Errorf("%w: %s", ErrSourceReused, s)
	}
	if s.ch == nil {
		return invalid("%s: nil channel", s)
	}
	if s.mapFn == nil {
		if _, ok := any(*new(E)).(Request); !ok {
			return invalid("%s: nil map function for values that are not Requests", s)
		}
	}
	s.bound = true
	return nil
}

func (s *channelSource[E]) start(q enqueuer) error {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel, s.done = cancel, make(chan struct{})
	go s.run(ctx, q.add)
	return nil
}

// run reads the channel until it is closed or ctx ends.
func (s *channelSource[E]) run(ctx context.Context, add func(Request)) {
	defer close(s.done)
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-s.ch:
			if !ok {
				return
			}
			if s.mapFn == nil {
				add(any(e).(Request))
				continue
			}
			for _, req := range s.mapFn(ctx, e) {
				add(req)
			}
		}
	}
}

// stop ends the reading goroutine and waits for it.
func (s *channelSource[E]) stop() {
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
}

func (s *channelSource[E]) waitForSync(context.Context) error { return nil }

func (s *channelSource[E]) hasSynced() bool { return true }

func (s *channelSource[E]) informerName() string { return "" }

func (s *channelSource[E]) sourceKind() sourceKind { return kindChannel }

func (s *channelSource[E]) goType() reflect.Type { return reflect.TypeFor[E]() }
