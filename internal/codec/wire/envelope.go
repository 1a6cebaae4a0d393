package wire

import (
	"errors"
)

// Magic starts every protobuf-encoded Kubernetes object.
const Magic = "k8s\x00"

// ErrNoMagic is returned for a protobuf object that does not start with
// [Magic].
var ErrNoMagic = errors.New("wire: no protobuf magic")

// HasMagic reports whether b starts with [Magic].
func HasMagic(b []byte) bool { return len(b) >= len(Magic) && string(b[:len(Magic)]) == Magic }

// Envelope is a protobuf-encoded object as the server frames it: after
// [Magic], a runtime.Unknown holding the object's apiVersion and kind and
// its bytes. Its slices alias the bytes it was read from.
type Envelope struct {
	APIVersion, Kind, Raw []byte
	// Plain is false when the envelope names a content encoding or type,
	// which only the full decoder handles.
	Plain bool
}

// ReadEnvelope reads a protobuf object envelope, magic included, in place.
func ReadEnvelope(b []byte) (Envelope, error) {
	if !HasMagic(b) {
		return Envelope{}, ErrNoMagic
	}
	e := Envelope{Plain: true}
	var inner error
	err := BytesFields(b[len(Magic):], func(num int, val []byte) {
		switch num {
		case 1: // TypeMeta
			if err := BytesFields(val, func(num int, v []byte) {
				switch num {
				case 1:
					e.APIVersion = v
				case 2:
					e.Kind = v
				}
			}); err != nil {
				inner = err
			}
		case 2:
			e.Raw = val
		case 3, 4: // contentEncoding, contentType
			if len(val) > 0 {
				e.Plain = false
			}
		}
	})
	if err == nil {
		err = inner
	}
	return e, err
}

// ReadWatchEvent reads a metav1.WatchEvent in place: its type (field 1)
// and its object (field 2, a runtime.RawExtension whose bytes are its
// field 1). raw aliases b.
func ReadWatchEvent(b []byte) (typ string, raw []byte, err error) {
	var t []byte
	err = BytesFields(b, func(num int, val []byte) {
		switch num {
		case 1:
			t = val
		case 2:
			raw = nil
			if err2 := BytesFields(val, func(num int, v []byte) {
				if num == 1 {
					raw = v
				}
			}); err2 != nil {
				err = err2
			}
		}
	})
	return eventType(t), raw, err
}

// eventType returns the type of a watch event, without allocating for the
// known types.
func eventType(b []byte) string {
	for _, known := range [...]string{"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"} {
		if string(b) == known {
			return known
		}
	}
	return string(b)
}

// Identity reads metadata.namespace, metadata.name and
// metadata.resourceVersion from an object's protobuf bytes (metadata is
// field 1 of every Kubernetes object; in ObjectMeta, name is 1, namespace 3
// and resourceVersion 6), in place. ok is false when they cannot be read,
// or name or resourceVersion is empty.
func Identity(obj []byte) (namespace, name, resourceVersion []byte, ok bool) {
	var meta []byte
	if err := BytesFields(obj, func(num int, val []byte) {
		if num == 1 {
			meta = val
		}
	}); err != nil || meta == nil {
		return nil, nil, nil, false
	}
	err := BytesFields(meta, func(num int, val []byte) {
		switch num {
		case 1:
			name = val
		case 3:
			namespace = val
		case 6:
			resourceVersion = val
		}
	})
	return namespace, name, resourceVersion, err == nil && len(name) > 0 && len(resourceVersion) > 0
}
