package rest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// This file reads the few protobuf envelopes of the Kubernetes wire format
// in place, without decoding them into Go structs: the watch event
// (metav1.WatchEvent), the object envelope (runtime.Unknown after the
// "k8s\x00" magic) and the identity fields of an object's metadata. The
// generated Unmarshal methods copy every bytes field; reading the envelopes
// here saves two copies of every object that arrives.

// errProtoMalformed is wrapped when a protobuf envelope cannot be read.
var errProtoMalformed = errors.New("malformed protobuf")

// protoField reads one field of a protobuf message from b. For a
// length-delimited field (wire type 2) val is its content, aliasing b; for
// other wire types val is nil. rest is what follows the field.
func protoField(b []byte) (num int, wireType byte, val, rest []byte, err error) {
	key, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, 0, nil, nil, fmt.Errorf("%w: bad field key", errProtoMalformed)
	}
	b = b[n:]
	num, wireType = int(key>>3), byte(key&7)
	if num <= 0 || key>>3 > 1<<29 {
		return 0, 0, nil, nil, fmt.Errorf("%w: field number %d", errProtoMalformed, key>>3)
	}
	switch wireType {
	case 0: // varint
		_, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, 0, nil, nil, fmt.Errorf("%w: bad varint in field %d", errProtoMalformed, num)
		}
		return num, wireType, nil, b[n:], nil
	case 1: // 64-bit
		if len(b) < 8 {
			return 0, 0, nil, nil, fmt.Errorf("%w: short fixed64 in field %d", errProtoMalformed, num)
		}
		return num, wireType, nil, b[8:], nil
	case 2: // length-delimited
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return 0, 0, nil, nil, fmt.Errorf("%w: bad length in field %d", errProtoMalformed, num)
		}
		b = b[n:]
		return num, wireType, b[:l], b[l:], nil
	case 5: // 32-bit
		if len(b) < 4 {
			return 0, 0, nil, nil, fmt.Errorf("%w: short fixed32 in field %d", errProtoMalformed, num)
		}
		return num, wireType, nil, b[4:], nil
	}
	return 0, 0, nil, nil, fmt.Errorf("%w: wire type %d in field %d", errProtoMalformed, wireType, num)
}

// protoBytesFields calls f for every length-delimited field of message b,
// stopping at the first error. Fields of other wire types are skipped.
func protoBytesFields(b []byte, f func(num int, val []byte)) error {
	for len(b) > 0 {
		num, wt, val, rest, err := protoField(b)
		if err != nil {
			return err
		}
		if wt == 2 {
			f(num, val)
		}
		b = rest
	}
	return nil
}

// parseWatchEvent reads a metav1.WatchEvent: type (1) and object (2, a
// runtime.RawExtension whose raw bytes are its field 1). raw aliases b.
func parseWatchEvent(b []byte) (typ string, raw []byte, err error) {
	var t []byte
	err = protoBytesFields(b, func(num int, val []byte) {
		switch num {
		case 1:
			t = val
		case 2:
			raw = nil
			err2 := protoBytesFields(val, func(num int, v []byte) {
				if num == 1 {
					raw = v
				}
			})
			if err2 != nil {
				err = err2
			}
		}
	})
	return eventTypeString(t), raw, err
}

// eventTypeString returns the type of a watch event without allocating
// for the known types.
func eventTypeString(b []byte) string {
	switch string(b) {
	case "ADDED":
		return "ADDED"
	case "MODIFIED":
		return "MODIFIED"
	case "DELETED":
		return "DELETED"
	case "BOOKMARK":
		return "BOOKMARK"
	case "ERROR":
		return "ERROR"
	}
	return string(b)
}

// envelope is a protobuf-encoded object as the server frames it: after the
// magic, a runtime.Unknown holding the object's apiVersion and kind and its
// bytes. All slices alias the input.
type envelope struct {
	apiVersion, kind, raw []byte
	// plain is false when the envelope names a content encoding or type,
	// which only the full decoder handles.
	plain bool
}

// parseEnvelope reads a protobuf object envelope (magic included).
func parseEnvelope(b []byte) (envelope, error) {
	if !bytes.HasPrefix(b, protoMagic) {
		return envelope{}, fmt.Errorf("%w: no protobuf magic", errProtoMalformed)
	}
	e := envelope{plain: true}
	var inner error
	err := protoBytesFields(b[len(protoMagic):], func(num int, val []byte) {
		switch num {
		case 1: // TypeMeta
			if err := protoBytesFields(val, func(num int, v []byte) {
				switch num {
				case 1:
					e.apiVersion = v
				case 2:
					e.kind = v
				}
			}); err != nil {
				inner = err
			}
		case 2:
			e.raw = val
		case 3, 4: // contentEncoding, contentType
			if len(val) > 0 {
				e.plain = false
			}
		}
	})
	if err == nil {
		err = inner
	}
	return e, err
}

// objectIdentity reads metadata.namespace, metadata.name and
// metadata.resourceVersion from an object's protobuf bytes (metadata is
// field 1 of every Kubernetes object; in ObjectMeta, name is 1, namespace 3
// and resourceVersion 6). ok is false when they cannot be read.
func objectIdentity(obj []byte) (namespace, name, resourceVersion []byte, ok bool) {
	var meta []byte
	if err := protoBytesFields(obj, func(num int, val []byte) {
		if num == 1 {
			meta = val
		}
	}); err != nil || meta == nil {
		return nil, nil, nil, false
	}
	err := protoBytesFields(meta, func(num int, val []byte) {
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

// managedFieldsField is metadata.managedFields in ObjectMeta's protobuf.
const managedFieldsField = 17

// trimmer leaves metadata.managedFields out of protobuf objects before they
// are decoded, reusing its buffers from one object to the next (decoding
// copies what it keeps, so a buffer is free again once an object is
// decoded).
type trimmer struct{ meta, obj, typeMeta, env []byte }

// envelope returns body, a protobuf object envelope, without the object's
// metadata.managedFields. It returns body itself when there are none, and
// when body cannot be read (the decoder then reports why).
func (t *trimmer) envelope(body []byte) []byte {
	e, err := parseEnvelope(body)
	if err != nil || !e.plain {
		return body
	}
	obj, ok := t.object(e.raw)
	if !ok {
		return body
	}
	t.typeMeta = protoAppendBytes(t.typeMeta[:0], 1, e.apiVersion)
	t.typeMeta = protoAppendBytes(t.typeMeta, 2, e.kind)
	t.env = append(t.env[:0], protoMagic...)
	t.env = protoAppendBytes(t.env, 1, t.typeMeta)
	t.env = protoAppendBytes(t.env, 2, obj)
	return t.env
}

// object returns obj without metadata.managedFields; ok is false when
// there are none (or obj cannot be read) and obj should be used as is.
func (t *trimmer) object(obj []byte) ([]byte, bool) {
	var meta []byte
	metas := 0
	if err := protoBytesFields(obj, func(num int, val []byte) {
		if num == 1 {
			meta = val
			metas++
		}
	}); err != nil || metas != 1 {
		return nil, false // none, or split in parts to be merged: leave it
	}
	t.meta = t.meta[:0]
	dropped := false
	for b := meta; len(b) > 0; {
		num, _, _, rest, err := protoField(b)
		if err != nil {
			return nil, false
		}
		if num == managedFieldsField {
			dropped = true
		} else {
			t.meta = append(t.meta, b[:len(b)-len(rest)]...)
		}
		b = rest
	}
	if !dropped {
		return nil, false
	}
	t.obj = t.obj[:0]
	for b := obj; len(b) > 0; {
		num, wt, _, rest, err := protoField(b)
		if err != nil {
			return nil, false
		}
		if num == 1 && wt == 2 {
			t.obj = protoAppendBytes(t.obj, 1, t.meta)
		} else {
			t.obj = append(t.obj, b[:len(b)-len(rest)]...)
		}
		b = rest
	}
	return t.obj, true
}

// protoAppendBytes appends length-delimited field num holding val.
func protoAppendBytes(dst []byte, num int, val []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(num)<<3|2)
	dst = binary.AppendUvarint(dst, uint64(len(val)))
	return append(dst, val...)
}
