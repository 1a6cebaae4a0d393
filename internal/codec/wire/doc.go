// Package wire reads the bytes of the Kubernetes API in place: the
// protobuf wire format, the envelopes kube-apiserver frames objects and
// watch events in, and the few JSON shapes a decoder needs to look at
// before decoding.
//
// It is the one protobuf wire reader of the module. [ReadVarint],
// [ReadLength] and [Skip] follow the generated decoders of k8s.io/api
// exactly (the same inputs are errors), so the plan decoder built on them
// fails where the generated one fails. [Field] and [BytesFields] walk the
// fields of a message without decoding it.
//
// On top of those:
//
//   - [ReadEnvelope] and [ReadWatchEvent] read an object's envelope and a
//     watch event without copying the object's bytes out of them, which
//     the generated runtime.Unknown and metav1.WatchEvent decoders do;
//   - [Identity] reads an object's namespace, name and resourceVersion
//     without decoding it, so a watch can tell an object its caller holds
//     already;
//   - [Trimmer] and [CutManagedFieldsJSON] cut metadata.managedFields out
//     of an object's bytes (protobuf and JSON) for a caller that drops them
//     anyway;
//   - [PeekTypeMeta] reads a JSON object's apiVersion and kind by skipping
//     every other value unparsed.
//
// Every reader gives up rather than guess: when it cannot read its input
// plainly it says so (an error, ok == false, or its input back unchanged),
// and the caller falls back to the full decoder, which reports what is
// wrong. Nothing here allocates for input it only reads; slices returned
// alias the input.
package wire
