package codec

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubego/kubego/internal/codec/dedup"
)

// Hints say what the caller of a watch will do with the objects it
// receives, so that the watch can leave out work whose result would be
// thrown away. The zero value asks for nothing. An informer makes them, one
// value per watch; the client packages carry them unchanged to rest, which
// follows them while it decodes the events.
type Hints struct {
	// Known returns the object the caller holds with this namespace and
	// name when that object has exactly this resourceVersion, and false
	// otherwise. For such an event the watch may deliver the held object
	// instead of decoding the event: a resourceVersion names one state of
	// one object, so nothing observable changes, and a relist of unchanged
	// objects then costs neither decoding nor garbage. Known is called from
	// the watch's goroutine while other goroutines use the caller; its
	// string arguments are valid during the call only (they point into a
	// read buffer) and must not be kept. nil knows nothing.
	Known func(namespace, name, resourceVersion string) (runtime.Object, bool)
	// DropManagedFields says the caller discards metadata.managedFields:
	// the watch may cut them from an event's bytes before decoding it.
	DropManagedFields bool
	// Share, when set, is the caller's table of shared values: every object
	// the watch delivers (other than bookmarks) shares its values through
	// it, and the caller does not share them again. Such objects are
	// read-only: a change to a shared map would show in other objects.
	Share *dedup.Table
}
