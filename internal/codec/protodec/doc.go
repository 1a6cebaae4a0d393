// Package protodec decodes Kubernetes protobuf messages into Go structs from
// plans derived from their `protobuf` struct tags, optionally sharing the
// strings and maps it decodes with equal ones decoded before.
//
// The generated Unmarshal methods of k8s.io/api allocate every string and
// map they meet and grow every repeated field by appending. An informer then
// replaces most of those values by shared copies (internal/codec/dedup), so
// most of what was allocated is garbage at once; resource-list maps, dropped
// for a shared equal map a moment after they were built, are the largest
// part of it. This decoder looks values up before it builds them: a string
// is looked up by its bytes, a map by the bytes of all its entries, and
// only a value not seen before is allocated. Repeated fields are counted
// before the slice is made, so a slice is allocated once.
//
// A plan is built once per Go type by reflection and then walked with
// unsafe offsets and typed writes (as internal/codec/dedup does); the wire
// is read with internal/codec/wire. Types whose fields carry no protobuf
// tags (metav1.Time, resource.Quantity, runtime.RawExtension, …) are
// decoded by their own Unmarshal method. A type the planner does not
// understand makes Decoder.Unmarshal report that it did not handle the
// message; the caller then uses the generated method. The result, and
// whether an input is an error, are the same as the generated methods' (a
// differential test and fuzz target hold it to that).
//
// Sharing is only for objects whose values nobody will modify: an
// informer's cache. A [Sharer] decides what is shared; without one, every
// value is freshly allocated and the result can be modified like the
// generated decoder's.
package protodec
