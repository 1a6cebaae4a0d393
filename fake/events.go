package fake

import (
	"maps"

	"k8s.io/apimachinery/pkg/watch"
)

// Events are one storage that kube-apiserver serves through two groups:
// core/v1 and events.k8s.io (each version). An Event written through one
// is read, listed and watched through the others, with the same uid and
// resourceVersion and its fields under the other group's names. The
// server keeps one stored copy per served view and writes them together.

// isEvent reports whether res is a view of the Event storage.
func isEvent(res *resource) bool {
	return res.gvk.Kind == "Event" && (res.gvk.Group == "" || res.gvk.Group == "events.k8s.io")
}

// coreEventFields maps the core/v1 names of Event fields to their
// events.k8s.io names; the other fields have the same name in both.
var coreEventFields = map[string]string{
	"involvedObject":     "regarding",
	"message":            "note",
	"source":             "deprecatedSource",
	"firstTimestamp":     "deprecatedFirstTimestamp",
	"lastTimestamp":      "deprecatedLastTimestamp",
	"count":              "deprecatedCount",
	"reportingComponent": "reportingController",
}

// eventAs returns the content u of an Event of view from as seen through
// view to. u is not modified; the result shares its nested values.
func eventAs(u map[string]any, from, to *resource) map[string]any {
	out := maps.Clone(u)
	out["apiVersion"] = to.gvk.GroupVersion().String()
	fromCore, toCore := from.gvk.Group == "", to.gvk.Group == ""
	if fromCore == toCore {
		return out
	}
	for core, other := range coreEventFields {
		src, dst := core, other
		if toCore {
			src, dst = other, core
		}
		if v, ok := out[src]; ok {
			delete(out, src)
			out[dst] = v
		}
	}
	return out
}

// put stores obj and records the event (see store.put); an Event is
// written to every view of the Event storage, at the same
// resourceVersion. Caller holds s.mu.
func (s *Server) put(typ watch.EventType, obj, prev *object) {
	s.st.put(typ, obj, prev)
	if !obj.res.builtin {
		s.putVersions(typ, obj)
		return
	}
	if !isEvent(obj.res) {
		return
	}
	for _, view := range s.reg.events {
		if view == obj.res {
			continue
		}
		old := s.st.get(view, obj.key)
		vt := typ
		switch {
		case typ == watch.Deleted && old == nil:
			continue
		case typ == watch.Deleted:
		case old == nil:
			vt = watch.Added
		default:
			vt = watch.Modified
		}
		s.st.put(vt, newObject(view, eventAs(obj.u, obj.res, view), obj.rv), old)
	}
}
