package protodec

import (
	"reflect"
	"unsafe"
)

// Alias is a [Sharer] that makes every decoded string a view of the
// message's own bytes instead of a copy, and shares no map. Decoding with
// it allocates no string data, and the result may be modified like any
// freshly decoded object (Go strings are immutable; maps and slices are
// the result's own), but it keeps the message's bytes alive and reads them:
// use it only on bytes that never change afterwards, such as a cache's
// encoded objects. The zero value is ready to use.
type Alias struct{}

// ShareBytes returns b viewed as a string, without copying it.
func (Alias) ShareBytes(_ uint32, b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// SharedMap holds no map.
func (Alias) SharedMap(uint32, reflect.Type, []byte) (reflect.Value, bool) {
	return reflect.Value{}, false
}

// KeepMap keeps nothing.
func (Alias) KeepMap(uint32, reflect.Type, []byte, reflect.Value) {}

// Own is [Alias] for bytes that belong to the decoded object alone, such
// as a buffer decompressed for one read: besides its strings, its []byte
// fields view the message's bytes instead of copying them. Each view's
// capacity ends with its field, so an append to one copies it instead of
// writing over the next field; writing into a view's elements changes
// only the buffer that one object owns. The bytes must not be read or
// changed by anything else afterwards.
type Own struct{ Alias }
