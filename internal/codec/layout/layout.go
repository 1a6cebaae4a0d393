// Package layout names the memory layout of Go values that the module's
// unsafe walkers (the plan decoder in internal/codec/protodec and the
// sharing walker in internal/codec/dedup) rely on, in one place, with a
// test that holds it to what the runtime does.
package layout

import "unsafe"

// Slice is the layout of every Go slice: a *Slice may point at a slice of
// any element type. Code that writes Data must write a pointer to memory
// holding Cap elements of that type.
type Slice struct {
	Data     unsafe.Pointer
	Len, Cap int
}

// SameMap reports whether a and b are the same map (not merely equal): a
// map value is one pointer.
func SameMap[M ~map[K]V, K comparable, V any](a, b M) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&a)) == *(*unsafe.Pointer)(unsafe.Pointer(&b))
}
