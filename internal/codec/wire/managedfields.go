package wire

import stdjson "encoding/json"

// managedFieldsField is metadata.managedFields in ObjectMeta's protobuf.
const managedFieldsField = 17

// Trimmer leaves metadata.managedFields out of protobuf objects before they
// are decoded, for a caller that would drop them anyway. It reuses its
// buffers from one object to the next: what it returns is valid until its
// next call, which suits a decoder (decoding copies what it keeps). The
// zero value is ready to use; a Trimmer is for one goroutine.
type Trimmer struct{ meta, obj, typeMeta, env []byte }

// Envelope returns body, a protobuf object envelope ([Magic] included),
// without the object's metadata.managedFields. It returns body itself when
// there are none, and when body cannot be read (the decoder then reports
// why).
func (t *Trimmer) Envelope(body []byte) []byte {
	e, err := ReadEnvelope(body)
	if err != nil || !e.Plain {
		return body
	}
	obj, ok := t.object(e.Raw)
	if !ok {
		return body
	}
	t.typeMeta = AppendBytes(t.typeMeta[:0], 1, e.APIVersion)
	t.typeMeta = AppendBytes(t.typeMeta, 2, e.Kind)
	t.env = append(t.env[:0], Magic...)
	t.env = AppendBytes(t.env, 1, t.typeMeta)
	t.env = AppendBytes(t.env, 2, obj)
	return t.env
}

// object returns obj without metadata.managedFields; ok is false when
// there are none (or obj cannot be read) and obj should be used as is.
func (t *Trimmer) object(obj []byte) ([]byte, bool) {
	var meta []byte
	metas := 0
	if err := BytesFields(obj, func(num int, val []byte) {
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
		num, _, _, rest, err := Field(b)
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
		num, wt, _, rest, err := Field(b)
		if err != nil {
			return nil, false
		}
		if num == 1 && wt == Bytes {
			t.obj = AppendBytes(t.obj, 1, t.meta)
		} else {
			t.obj = append(t.obj, b[:len(b)-len(rest)]...)
		}
		b = rest
	}
	return t.obj, true
}

// CutManagedFieldsJSON removes the member "managedFields" from the
// top-level "metadata" object of the JSON object b, in place, and returns
// the shortened slice: the JSON twin of [Trimmer.Envelope]. The removed
// value must be valid JSON, so a malformed object is still reported by the
// decode that follows. Anything it cannot read plainly (a top-level value
// that is not an object, keys with escapes) is left as is: cutting is an
// optimisation, and the caller still drops managedFields after decoding.
func CutManagedFieldsJSON(b []byte) []byte {
	_, _, mdStart, mdEnd, _, ok := findMember(b, skipSpace(b, 0), "metadata")
	if !ok || b[mdStart] != '{' {
		return b
	}
	prevEnd, keyStart, valStart, valEnd, hasPrev, ok := findMember(b[:mdEnd], mdStart, "managedFields")
	if !ok || !stdjson.Valid(b[valStart:valEnd]) {
		return b
	}
	// Remove the member with one of its commas: the one after it, or,
	// for the last member, the one before it.
	from, to := keyStart, valEnd
	if j := skipSpace(b, valEnd); j < mdEnd && b[j] == ',' {
		if to = skipSpace(b, j+1); to >= mdEnd || b[to] != '"' {
			return b // a trailing comma: leave the error to the decoder
		}
	} else if hasPrev {
		from = prevEnd
	}
	return append(b[:from], b[to:]...)
}
