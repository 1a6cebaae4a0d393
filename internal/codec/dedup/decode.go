package dedup

import (
	"bytes"
	"hash/maphash"
	"reflect"
	"unsafe"
)

// This file is the Table seen by a decoder (internal/codec/protodec.Sharer):
// it shares values while they are decoded, before they are allocated.

// rawMap is a map remembered with the encoded bytes it was decoded from.
type rawMap struct {
	raw string
	m   reflect.Value
}

// Session is a Table held by one decoder for one message: it implements
// internal/codec/protodec.Sharer. [Table.Begin] starts it, holding the
// table until [Session.End], so the decoder pays for one lock per message
// rather than one per value; the table's other methods wait meanwhile. A
// Session is for the goroutine that began it, and is unusable after End.
type Session struct{ t *Table }

// Begin holds the table for one decoder until End is called on the
// returned Session. namespace and name are those of the object decoded:
// its values count as met in that object (see [Table]); an empty name is
// an object of unknown name, whose values count as met in every other
// object. Begin does not keep them.
func (t *Table) Begin(namespace, name []byte) Session {
	t.mu.Lock()
	t.meet(t.ownerOf(transient(namespace), transient(name)))
	return Session{t}
}

// transient views b as a string without copying, for hashing only.
func transient(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// End releases the table.
func (s Session) End() { s.t.mu.Unlock() }

// ShareBytes returns a string equal to b: the shared copy when b's value
// recurs, a new string otherwise. It does not keep b. site names the
// field decoded (see internal/codec/protodec.Sharer): a field whose values
// have not recurred lately is not looked up for a while (see [Table]).
func (s Session) ShareBytes(site uint32, b []byte) string { return s.t.shareBytes(site, b) }

// SharedMap returns the map of type typ decoded earlier from the same
// encoded entries raw, if the table holds one.
func (s Session) SharedMap(site uint32, typ reflect.Type, raw []byte) (reflect.Value, bool) {
	return s.t.sharedMap(site, typ, raw)
}

// KeepMap remembers m, decoded from raw, for SharedMap. m must never be
// changed afterwards. It follows the SharedMap call for the same raw that
// found nothing.
func (s Session) KeepMap(_ uint32, typ reflect.Type, raw []byte, m reflect.Value) {
	s.t.keepMap(typ, raw, m)
}

func (t *Table) shareBytes(site uint32, b []byte) string {
	if len(b) == 0 || len(b) > MaxStringLen {
		return string(b)
	}
	st := t.sites.at(site)
	if st.resting() {
		t.sites.rested++
		return string(b)
	}
	h := maphash.Bytes(t.seed, b)
	met, elsewhere := t.recurring(h)
	if !met {
		st.note(false)
		return string(b)
	}
	if c, ok := t.strs.get(string(b)); ok { // no allocation: a lookup
		st.note(true)
		return c
	}
	// A value that recurred only in its own object counts as not
	// recurring: a field of per-object values (addresses, IDs) rests.
	st.note(elsewhere)
	s := string(b)
	if elsewhere {
		t.strs.put(s, s)
	}
	return s
}

func (t *Table) sharedMap(site uint32, typ reflect.Type, raw []byte) (reflect.Value, bool) {
	t.lastAgain = false
	if len(raw) > maxRawMap {
		return reflect.Value{}, false
	}
	st := t.sites.at(site)
	if st.resting() {
		return reflect.Value{}, false
	}
	h := maphash.Bytes(t.seed, raw)
	met, elsewhere := t.recurring(h)
	t.lastRaw, t.lastAgain = h, elsewhere
	if !met {
		st.note(false)
		return reflect.Value{}, false
	}
	e, ok := t.raws.get(mapKey{t: typ, h: h})
	if !ok || e.raw != string(raw) {
		st.note(elsewhere)
		return reflect.Value{}, false
	}
	st.note(true)
	return e.m, true
}

func (t *Table) keepMap(typ reflect.Type, raw []byte, m reflect.Value) {
	// Keep only what was met before in another object: the sharedMap
	// call that missed just now said whether raw recurs so.
	if !t.lastAgain || len(raw) > maxRawMap {
		return
	}
	h := maphash.Bytes(t.seed, raw)
	if h != t.lastRaw {
		return
	}
	if e, ok := t.raws.get(mapKey{t: typ, h: h}); ok && bytes.Equal([]byte(e.raw), raw) {
		return
	}
	t.raws.put(mapKey{t: typ, h: h}, rawMap{raw: string(raw), m: m})
}

// maxRawMap is the largest encoded map shared by its bytes: bigger maps
// (annotations holding whole manifests) are unique anyway.
const maxRawMap = 4096
