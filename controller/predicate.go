package controller

import (
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EventType says what happened to an object.
type EventType int

const (
	// Create: the object was added to the cache (including the objects of
	// the initial list).
	Create EventType = iota + 1
	// Update: the cached object changed, was relisted, or was resynced.
	Update
	// Delete: the object was removed from the cache.
	Delete
)

func (t EventType) String() string {
	switch t {
	case Create:
		return "Create"
	case Update:
		return "Update"
	case Delete:
		return "Delete"
	}
	return "EventType(?)"
}

// Event is what a Predicate sees. Object is the new state (the last known
// one for Delete); Old is set for Update only. Both are shared with the
// cache: read them, never modify them.
type Event struct {
	Type   EventType
	Object metav1.Object
	Old    metav1.Object
	// FinalStateUnknown marks a Delete noticed by a relist: Object may be
	// stale.
	FinalStateUnknown bool
}

// Predicate filters the events of a source: an event for which it returns
// false enqueues nothing. Predicates run on the source's handler goroutine
// and must be quick and side-effect free.
type Predicate func(Event) bool

// GenerationChanged passes every Create and Delete, and the Updates that
// change metadata.generation, i.e. the spec (for resources with a status
// subresource, status-only and metadata-only writes do not bump it). Note
// that custom resources without a status subresource, and some built-in
// kinds, do not set generation; for them it passes no Update at all.
func GenerationChanged(e Event) bool {
	if e.Type != Update || e.Old == nil {
		return true
	}
	return e.Old.GetGeneration() != e.Object.GetGeneration()
}

// LabelsChanged passes every Create and Delete, and the Updates that change
// metadata.labels.
func LabelsChanged(e Event) bool {
	if e.Type != Update || e.Old == nil {
		return true
	}
	return !maps.Equal(e.Old.GetLabels(), e.Object.GetLabels())
}

// AnnotationsChanged passes every Create and Delete, and the Updates that
// change metadata.annotations.
func AnnotationsChanged(e Event) bool {
	if e.Type != Update || e.Old == nil {
		return true
	}
	return !maps.Equal(e.Old.GetAnnotations(), e.Object.GetAnnotations())
}

// ResourceVersionChanged passes every Create and Delete, and the Updates
// whose resourceVersion differs: it drops periodic resyncs and relists of
// unchanged objects.
func ResourceVersionChanged(e Event) bool {
	if e.Type != Update || e.Old == nil {
		return true
	}
	return e.Old.GetResourceVersion() != e.Object.GetResourceVersion()
}

// And passes an event when every p passes it (and when ps is empty).
func And(ps ...Predicate) Predicate {
	return func(e Event) bool {
		for _, p := range ps {
			if !p(e) {
				return false
			}
		}
		return true
	}
}

// Or passes an event when at least one p passes it (never when ps is
// empty).
func Or(ps ...Predicate) Predicate {
	return func(e Event) bool {
		for _, p := range ps {
			if p(e) {
				return true
			}
		}
		return false
	}
}

// Not passes the events p drops.
func Not(p Predicate) Predicate {
	return func(e Event) bool { return !p(e) }
}
