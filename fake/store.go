package fake

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// event is one change in the global history, in resourceVersion order.
type event struct {
	rv   uint64
	typ  watch.EventType // Added, Modified or Deleted
	obj  *object         // the object after the change (for Deleted: as deleted, with rv)
	prev *object         // the object before the change; nil for Added
}

// store holds every object, the resourceVersion counter and the bounded
// event history. All fields are guarded by Server.mu.
type store struct {
	rv      uint64
	data    map[schema.GroupVersionResource]map[key]*object
	uids    map[types.UID]*object
	log     []event
	window  int
	dropped uint64 // rv of the newest event dropped from log; watches from older rvs get 410
	notify  chan struct{}
}

func newStore(window int) *store {
	return &store{
		data:   map[schema.GroupVersionResource]map[key]*object{},
		uids:   map[types.UID]*object{},
		window: window,
		notify: make(chan struct{}),
	}
}

func (s *store) get(res *resource, k key) *object { return s.data[res.gvr][k] }

func (s *store) next() uint64 {
	s.rv++
	return s.rv
}

// put stores obj (whose rv is already set) and records the event.
func (s *store) put(typ watch.EventType, obj, prev *object) {
	m := s.data[obj.res.gvr]
	if m == nil {
		m = map[key]*object{}
		s.data[obj.res.gvr] = m
	}
	if typ == watch.Deleted {
		delete(m, obj.key)
		delete(s.uids, obj.meta().GetUID())
	} else {
		m[obj.key] = obj
		s.uids[obj.meta().GetUID()] = obj
	}
	s.log = append(s.log, event{rv: obj.rv, typ: typ, obj: obj, prev: prev})
	if over := len(s.log) - s.window; over > 0 {
		s.dropped = s.log[over-1].rv
		clear(s.log[:over])
		s.log = s.log[over:]
		if cap(s.log) > 4*s.window+64 {
			s.log = append([]event(nil), s.log...)
		}
	}
	close(s.notify)
	s.notify = make(chan struct{})
}

// tooOld reports whether the history no longer holds every event after rv.
func (s *store) tooOld(rv uint64) bool { return rv < s.dropped }

// since returns the events with resourceVersion > rv, oldest first. The
// slice aliases the log: read it under the lock or copy it.
func (s *store) since(rv uint64) []event {
	lo, hi := 0, len(s.log)
	for lo < hi {
		mid := (lo + hi) / 2
		if s.log[mid].rv <= rv {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return s.log[lo:]
}

// snapshot returns the objects of res as they were at rv, which must not
// be tooOld. The map is a fresh copy.
func (s *store) snapshot(res *resource, rv uint64) map[key]*object {
	cur := s.data[res.gvr]
	out := make(map[key]*object, len(cur))
	for k, o := range cur {
		out[k] = o
	}
	if rv >= s.rv {
		return out
	}
	evs := s.since(rv)
	for i := len(evs) - 1; i >= 0; i-- {
		ev := evs[i]
		if ev.obj.res != res {
			continue
		}
		if ev.prev == nil {
			delete(out, ev.obj.key)
		} else {
			out[ev.prev.key] = ev.prev
		}
	}
	return out
}
