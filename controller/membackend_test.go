package controller

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/informer"
)

// memBackend is an in-memory informer.Backend for unit tests: one store per
// Go type, LIST and WATCH served from it, writes fanned out to watchers.
// It has no timers, so it works inside testing/synctest bubbles. A WATCH
// from a resourceVersion first replays the writes made after it, as the API
// server does, so a write between an informer's LIST and its WATCH is not
// lost.
type memBackend struct {
	mu      sync.Mutex
	rv      int
	objs    map[reflect.Type]map[informer.Key]informer.Object
	watches map[reflect.Type][]*memWatch
	events  map[reflect.Type][]watch.Event // every write since creation, in order
	gate    chan struct{}                  // when not nil, LIST waits for it to close
	listErr error                          // when set, LIST fails with it
}

func newMemBackend(objs ...informer.Object) *memBackend {
	s := &memBackend{objs: map[reflect.Type]map[informer.Key]informer.Object{}, watches: map[reflect.Type][]*memWatch{}, events: map[reflect.Type][]watch.Event{}}
	for _, o := range objs {
		s.put(o)
	}
	return s
}

func (s *memBackend) put(o informer.Object) informer.Object {
	t := reflect.TypeOf(o)
	if s.objs[t] == nil {
		s.objs[t] = map[informer.Key]informer.Object{}
	}
	s.rv++
	o = o.DeepCopyObject().(informer.Object)
	o.SetResourceVersion(strconv.Itoa(s.rv))
	s.objs[t][informer.KeyOf(o)] = o
	return o
}

// write stores o (create or update) and notifies watchers.
func (s *memBackend) write(o informer.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := reflect.TypeOf(o)
	_, existed := s.objs[t][informer.KeyOf(o)]
	o = s.put(o)
	typ := watch.Added
	if existed {
		typ = watch.Modified
	}
	s.notify(t, watch.Event{Type: typ, Object: o.DeepCopyObject()})
}

// remove deletes o and notifies watchers.
func (s *memBackend) remove(o informer.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := reflect.TypeOf(o)
	old, ok := s.objs[t][informer.KeyOf(o)]
	if !ok {
		return
	}
	delete(s.objs[t], informer.KeyOf(o))
	s.rv++
	old = old.DeepCopyObject().(informer.Object)
	old.SetResourceVersion(strconv.Itoa(s.rv))
	s.notify(t, watch.Event{Type: watch.Deleted, Object: old})
}

func (s *memBackend) notify(t reflect.Type, e watch.Event) {
	s.events[t] = append(s.events[t], e)
	live := s.watches[t][:0]
	for _, w := range s.watches[t] {
		select {
		case w.in <- e:
			live = append(live, w)
		case <-w.done:
		}
	}
	s.watches[t] = live
}

func (s *memBackend) ListerWatcher(_ context.Context, t informer.Target) (informer.ListerWatcher[informer.Object], error) {
	return &memLW{s: s, t: t.Type}, nil
}

type memLW struct {
	s *memBackend
	t reflect.Type
}

func (l *memLW) List(ctx context.Context, _ metav1.ListOptions) (informer.ListResult[informer.Object], error) {
	l.s.mu.Lock()
	gate, err := l.s.gate, l.s.listErr
	l.s.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return informer.ListResult[informer.Object]{}, ctx.Err()
		}
	}
	if err != nil {
		return informer.ListResult[informer.Object]{}, err
	}
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	res := informer.ListResult[informer.Object]{ResourceVersion: strconv.Itoa(l.s.rv)}
	for _, o := range l.s.objs[l.t] {
		res.Items = append(res.Items, o.DeepCopyObject().(informer.Object))
	}
	// In key order, as the API server lists.
	slices.SortFunc(res.Items, func(a, b informer.Object) int {
		return strings.Compare(informer.KeyOf(a).String(), informer.KeyOf(b).String())
	})
	return res, nil
}

func (l *memLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w := &memWatch{in: make(chan watch.Event, 1024), ch: make(chan watch.Event), done: make(chan struct{})}
	l.s.mu.Lock()
	if from, err := strconv.Atoi(opts.ResourceVersion); err == nil && from > 0 {
		for _, e := range l.s.events[l.t] {
			if rv, _ := strconv.Atoi(e.Object.(informer.Object).GetResourceVersion()); rv > from {
				w.replay = append(w.replay, watch.Event{Type: e.Type, Object: e.Object.DeepCopyObject()})
			}
		}
	}
	l.s.watches[l.t] = append(l.s.watches[l.t], w)
	l.s.mu.Unlock()
	go w.forward()
	context.AfterFunc(ctx, w.Stop)
	return w, nil
}

type memWatch struct {
	replay []watch.Event // writes after the requested resourceVersion, sent first
	in     chan watch.Event
	ch     chan watch.Event
	done   chan struct{}
	once   sync.Once
}

func (w *memWatch) Stop() { w.once.Do(func() { close(w.done) }) }

// forward passes events from in to ch until Stop, then closes ch.
func (w *memWatch) forward() {
	defer close(w.ch)
	for _, e := range w.replay {
		select {
		case w.ch <- e:
		case <-w.done:
			return
		}
	}
	for {
		select {
		case e := <-w.in:
			select {
			case w.ch <- e:
			case <-w.done:
				return
			}
		case <-w.done:
			return
		}
	}
}

func (w *memWatch) ResultChan() <-chan watch.Event { return w.ch }
