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
