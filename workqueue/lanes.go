package workqueue

import "slices"

// lanes holds waiting entries in first-in first-out lanes and hands them out
// in turn: each pop takes the oldest entry of the lane after the one popped
// last, skipping empty lanes, so a lane with a long backlog delays an entry
// of another lane by at most one entry per lane, not by its backlog. An
// unfair lanes (the zero value) is a single FIFO and costs nothing more.
//
// A lane exists only while it holds entries: emptied, it leaves the turn
// and is forgotten, so lane names may be unbounded over time. A new lane,
// or one that fills again, takes its turn after every lane already
// waiting has had one. It is not safe for concurrent use.
type lanes[T any] struct {
	fair bool
	one  fifo[T] // the only lane, when not fair

	byName map[string]*lane[T]
	turn   []*lane[T] // non-empty lanes, in turn order
	next   int        // index in turn of the lane popped next
	n      int
	// spare keeps up to maxSpareLanes emptied lanes, their first block
	// with them, for lanes that empty and fill again as workers keep up.
	spare []*lane[T]
}

const maxSpareLanes = 8

type lane[T any] struct {
	name    string
	entries fifo[T]
}

// len returns the number of entries in every lane.
func (l *lanes[T]) len() int {
	if !l.fair {
		return l.one.len()
	}
	return l.n
}

// push appends v to the lane named name (ignored when not fair).
func (l *lanes[T]) push(name string, v T) {
	if !l.fair {
		l.one.push(v)
		return
	}
	ln := l.byName[name]
	if ln == nil {
		if l.byName == nil {
			l.byName = make(map[string]*lane[T])
		}
		if n := len(l.spare); n > 0 {
			ln = l.spare[n-1]
			l.spare[n-1] = nil
			l.spare = l.spare[:n-1]
			ln.name = name
		} else {
			ln = &lane[T]{name: name}
		}
		l.byName[name] = ln
		// Last in the turn: just before the lane served next.
		l.turn = append(l.turn, nil)
		copy(l.turn[l.next+1:], l.turn[l.next:])
		l.turn[l.next] = ln
		l.next++
		if l.next == len(l.turn) {
			l.next = 0
		}
	}
	ln.entries.push(v)
	l.n++
}

// pop removes and returns the oldest entry of the lane whose turn it is.
// It must not be called when len() is 0.
func (l *lanes[T]) pop() T {
	if !l.fair {
		return l.one.pop()
	}
	ln := l.turn[l.next]
	v := ln.entries.pop()
	l.n--
	if ln.entries.len() > 0 {
		l.next++
	} else {
		delete(l.byName, ln.name)
		copy(l.turn[l.next:], l.turn[l.next+1:])
		l.turn[len(l.turn)-1] = nil
		l.turn = l.turn[:len(l.turn)-1]
		if len(l.spare) < maxSpareLanes {
			ln.name = ""
			l.spare = append(l.spare, ln)
		}
	}
	if l.next >= len(l.turn) {
		l.next = 0
	}
	return v
}

// each calls fn for every entry, in no particular order across lanes.
func (l *lanes[T]) each(fn func(T)) {
	if !l.fair {
		l.one.each(fn)
		return
	}
	for _, ln := range l.turn {
		ln.entries.each(fn)
	}
}

// clear empties every lane.
func (l *lanes[T]) clear() {
	if !l.fair {
		l.one.clear()
		return
	}
	*l = lanes[T]{fair: true}
}

// remove takes the lane named name out of the turn and returns its
// entries (none if there is no such lane, or lanes are not fair).
func (l *lanes[T]) remove(name string) fifo[T] {
	ln := l.byName[name]
	if !l.fair || ln == nil {
		return fifo[T]{}
	}
	delete(l.byName, name)
	i := slices.Index(l.turn, ln)
	l.turn = slices.Delete(l.turn, i, i+1)
	if i < l.next {
		l.next--
	}
	if l.next >= len(l.turn) {
		l.next = 0
	}
	l.n -= ln.entries.len()
	return ln.entries
}
