package dedup

import (
	"bytes"
	"hash/maphash"
	"reflect"
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
// returned Session.
func (t *Table) Begin() Session {
	t.mu.Lock()
	return Session{t}
}

// End releases the table.
func (s Session) End() { s.t.mu.Unlock() }

// ShareBytes returns a string equal to b: the shared copy when b's value
// recurs, a new string otherwise. It does not keep b.
func (s Session) ShareBytes(b []byte) string { return s.t.shareBytes(b) }

// SharedMap returns the map of type typ decoded earlier from the same
// encoded entries raw, if the table holds one.
func (s Session) SharedMap(typ reflect.Type, raw []byte) (reflect.Value, bool) {
	return s.t.sharedMap(typ, raw)
}

// KeepMap remembers m, decoded from raw, for SharedMap. m must never be
// changed afterwards.
func (s Session) KeepMap(typ reflect.Type, raw []byte, m reflect.Value) { s.t.keepMap(typ, raw, m) }

func (t *Table) shareBytes(b []byte) string {
	if len(b) == 0 || len(b) > MaxStringLen {
		return string(b)
	}
	h := maphash.Bytes(t.seed, b)
	if !t.recurring(h) {
		return string(b)
	}
	if c, ok := t.strs.get(string(b)); ok { // no allocation: a lookup
		return c
	}
	s := string(b)
	t.strs.put(s, s)
	return s
}

func (t *Table) sharedMap(typ reflect.Type, raw []byte) (reflect.Value, bool) {
	if len(raw) > maxRawMap {
		return reflect.Value{}, false
	}
	h := maphash.Bytes(t.seed, raw)
	again := t.recurring(h)
	t.lastRaw, t.lastAgain = h, again
	if !again {
		return reflect.Value{}, false
	}
	e, ok := t.raws.get(mapKey{t: typ, h: h})
	if !ok || e.raw != string(raw) {
		return reflect.Value{}, false
	}
	return e.m, true
}

func (t *Table) keepMap(typ reflect.Type, raw []byte, m reflect.Value) {
	if len(raw) > maxRawMap {
		return
	}
	h := maphash.Bytes(t.seed, raw)
	// Keep only what was met before: the sharedMap call that missed
	// just now said whether raw recurs.
	if h != t.lastRaw || !t.lastAgain {
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
