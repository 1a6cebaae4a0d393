// Package codec is the home of what kubego does to API objects between the
// bytes on the wire and the objects in an informer's cache, so that a cache
// of many similar objects costs little to fill and little to hold. rest
// calls it while decoding a watch; informer says, through [Hints], what it
// wants from a watch; nothing here is public API.
//
// The pieces, from the wire up:
//
//   - wire reads the protobuf wire format (the module's one reader), the
//     envelopes kube-apiserver frames objects and watch events in, an
//     object's identity, and cuts metadata.managedFields from protobuf and
//     JSON bytes, all in place;
//   - protodec decodes a protobuf message into its Go struct by a plan
//     made once per type, looking strings and maps up in a Sharer before
//     allocating them;
//   - dedup's Table is that Sharer for an informer: it makes cached objects
//     share equal strings, label maps and resource lists, by their bytes
//     while decoding or by walking an object decoded some other way;
//   - layout names the memory layout the two unsafe walkers rely on.
//
// This package ties them to a watch. An informer makes [Hints] for each
// watch: which objects it holds at which resourceVersion, whether it drops
// managedFields, and its Table. The client packages hand them unchanged to
// rest (rest.Request.Hints), which builds one [Events] per stream and, for
// each event: delivers the held object when [Events.Held] finds it (no
// decoding at all); cuts managedFields from the bytes ([Events.Trim]);
// and decodes the rest by plan through the Table ([Unmarshal]), or as
// usual followed by a walk of the Table for types without a plan.
//
// Objects that share values are read-only: a change to a shared map shows
// in every object holding it. Only an informer's cache, read-only by
// contract, is given a Table.
package codec
