package informer

// deltaType says what happened to an object.
type deltaType int

const (
	// deltaAdded: a watch reported a new object.
	deltaAdded deltaType = iota + 1
	// deltaUpdated: a watch reported a change to a known object.
	deltaUpdated
	// deltaDeleted: the object is gone. With FinalStateUnknown the deletion was
	// inferred by a relist, and Object is the last state the cache held.
	deltaDeleted
	// deltaReplaced: a relist (or the initial list) delivered the object. Old is
	// set when the cache held the key before.
	deltaReplaced
	// deltaSync: a periodic resync re-delivers an unchanged object to a handler.
	deltaSync
)

func (t deltaType) String() string {
	switch t {
	case deltaAdded:
		return "Added"
	case deltaUpdated:
		return "Updated"
	case deltaDeleted:
		return "Deleted"
	case deltaReplaced:
		return "Replaced"
	case deltaSync:
		return "Sync"
	}
	return "DeltaType(?)"
}

// change is one change applied to a cache, in the order the cache applied it.
// Deltas are computed by the single writer while it writes the store, so for
// one key they always arrive in order, a Deleted is never followed by a
// second Deleted for the same object, and the deltas of one relist form one
// batch that is applied and delivered atomically. This is kubego's
// equivalent of client-go's DeltaFIFO: per-key deltas without a second
// queue, because every handler already has its own buffer.
//
// In a decoded cache, objects are shared with the cache and with other
// handlers: read-only. In a compact one, objP and oldP hold the encodings
// each handler decodes for itself.
type change[T Object] struct {
	Type   deltaType
	Object T
	// Old is the previous object for Updated, and for Replaced when HasOld.
	Old    T
	HasOld bool
	// FinalStateUnknown marks a Deleted inferred by a relist: the object
	// disappeared while the watch was down, Object is its last known state.
	FinalStateUnknown bool
	// Initial marks deltas of the first full state (the initial list), and
	// the synthetic adds a handler gets when it registers.
	Initial bool

	// In a compact cache the objects travel encoded, and each handler
	// decodes its own (Object and Old are then unset until delivery).
	objP, oldP packed
}
