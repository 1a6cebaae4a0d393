package codec

import (
	"unsafe"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubego/kubego/internal/codec/dedup"
	"github.com/kubego/kubego/internal/codec/protodec"
	"github.com/kubego/kubego/internal/codec/wire"
)

// Events applies [Hints] to the events of one watch stream, on their bytes,
// before they are decoded. It is for the stream's goroutine only.
type Events struct {
	hints Hints
	trim  wire.Trimmer
}

// NewEvents returns the event codec of one watch following h.
func NewEvents(h Hints) *Events { return &Events{hints: h} }

// Held returns the caller's own copy of the object in env (a protobuf
// object envelope, [wire.Magic] included) when [Hints.Known] holds it at
// the same resourceVersion. It answers false when the object's identity
// cannot be read in place; the event is then decoded as usual.
func (e *Events) Held(env []byte) (runtime.Object, bool) {
	if e.hints.Known == nil {
		return nil, false
	}
	en, err := wire.ReadEnvelope(env)
	if err != nil || !en.Plain {
		return nil, false
	}
	ns, name, rv, ok := wire.Identity(en.Raw)
	if !ok {
		return nil, false
	}
	obj, ok := e.hints.Known(transient(ns), transient(name), transient(rv))
	if !ok || obj == nil {
		return nil, false
	}
	return obj, true
}

// Trim returns an event's object bytes without metadata.managedFields when
// the hints drop them, and raw otherwise. A protobuf envelope is rebuilt in
// a buffer of e's, valid until the next call; a JSON object is cut in
// place, so raw must be the event's own bytes.
func (e *Events) Trim(protobuf bool, raw []byte) []byte {
	switch {
	case !e.hints.DropManagedFields:
		return raw
	case protobuf:
		return e.trim.Envelope(raw)
	default:
		return wire.CutManagedFieldsJSON(raw)
	}
}

// Share returns the table the hints share values through, or nil.
func (e *Events) Share() *dedup.Table { return e.hints.Share }

// Unmarshal decodes the protobuf message raw into obj by plan, sharing its
// strings and maps through t while it holds t for this one message; its
// values count as met in the object of the namespace and name read from
// raw (see dedup.Table). handled is false, and obj untouched, when obj's
// type has no plan (see protodec.Decoder.Unmarshal).
func Unmarshal(d *protodec.Decoder, raw []byte, obj any, t *dedup.Table) (handled bool, err error) {
	ns, name, _, _ := wire.Identity(raw)
	s := t.Begin(ns, name)
	defer s.End()
	return d.Unmarshal(raw, obj, s)
}

// transient views b as a string without copying; the string is valid only
// while b is not overwritten.
func transient(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
