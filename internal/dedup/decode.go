package dedup

import (
	"bytes"
	"hash/maphash"
	"reflect"
)

// This file is the Table seen by a decoder (internal/protodec.Sharer): it
// shares values while they are decoded, before they are allocated.

// rawMap is a map remembered with the encoded bytes it was decoded from.
type rawMap struct {
	raw string
	m   reflect.Value
}

// Lock and Unlock guard the table. Object and ObjectLike take the lock
// themselves; a decoder holds it around each message while it calls
// ShareBytes, SharedMap and KeepMap, which do not.
func (t *Table) Lock()   { t.mu.Lock() }
func (t *Table) Unlock() { t.mu.Unlock() }

// ShareBytes returns a string equal to b: the shared copy when b's value
// recurs, a new string otherwise. It does not keep b. The caller holds the
// lock.
func (t *Table) ShareBytes(b []byte) string {
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

// SharedMap returns the map of type typ decoded earlier from the same
// encoded entries raw, if the table holds one. The caller holds the lock.
func (t *Table) SharedMap(typ reflect.Type, raw []byte) (reflect.Value, bool) {
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

// KeepMap remembers m, decoded from raw, for SharedMap. The caller holds
// the lock and never changes m afterwards.
func (t *Table) KeepMap(typ reflect.Type, raw []byte, m reflect.Value) {
	if len(raw) > maxRawMap {
		return
	}
	h := maphash.Bytes(t.seed, raw)
	// Keep only what was met before: the SharedMap call that missed
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
