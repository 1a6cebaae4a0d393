// Package dedup makes decoded API objects share their equal parts, so that
// a cache of many similar objects holds each distinct value once.
//
// An informer over the Pods of a cluster caches thousands of objects that
// differ only in a few fields: the replicas of one Deployment carry the same
// image, the same env names, the same label map and the same requests and
// limits. A decoder allocates every one of those values again for every
// object. A [Table] walks each object once, before it is cached, and
// replaces
//
//   - every string by an equal string seen before (the first copy wins),
//   - every map[string]string (and other maps of string-kind keys and
//     values, up to [MaxMapEntries] entries) by an equal map seen before,
//   - every resource list (a map of string-kind keys to resource.Quantity,
//     such as corev1.ResourceList) by an equal list seen before, after
//     fixing each Quantity's canonical string so that later String calls on
//     the shared value no longer write to it.
//
// The fields that are unique per object (metadata name, uid,
// resourceVersion, selfLink) are left alone, so they do not crowd the table.
//
// Sharing is only sound for objects nobody changes in place afterwards: a
// change to a shared map would show in every object that holds it. Objects
// in an informer cache are read-only by contract (the mutation detector
// checks it under test), which is exactly where a Table is used.
//
// A value enters the table the second time it is met, in another object
// than the one it was met in last (a small array of hash tags remembers
// what was met recently, and in which object: its namespace and name, from
// [Table.Begin] or from the object given to [Table.Object]). Values that
// never recur — names, hashes, per-object settings — cost one hash and no
// map operation, and the first copy of a recurring value stays with its
// object. Values that recur only in the versions of their own object — an
// address or ID kept from one update to the next, or the data of a
// ConfigMap rewritten every few seconds, met in the write's event and in
// the next event of that object — never enter it: sharing them between
// versions saves no memory, since a cache holds one version of each
// object, and keeping them would hold the values of every past write until
// they age out. A value already in the table is still shared with every
// object that meets it.
//
// The table forgets by generation: every entry is stamped with the
// generation in which it was last used, a new generation starts after a
// bounded number of insertions, and entries unused for a whole generation
// are dropped. A generation's size follows the number of objects the table
// has met (a few strings and maps per object, up to the limits of
// [Options]), so that a table serving a few dozen objects whose shared
// values keep changing holds a few hundred values no object holds any
// more, not tens of thousands. Memory held by the table alone is therefore
// bounded, and dropping a value from the table never changes an object.
//
// A decoder can share values before it allocates them: a [Session]
// ([Table.Begin]) looks a string up by its bytes and a map by the bytes of
// its encoded entries (internal/codec/protodec decodes through one), so an
// object decoded that way needs no walk afterwards.
//
// Through a Session the table also learns which fields are worth a
// lookup: the decoder names the field of each value, and a field whose
// values did not recur in a sample of lookups rests — its next values
// are decoded without one, for longer after each such sample in a row —
// and is then sampled again. A cache of data that never recurs (Secrets,
// ConfigMaps, unique specs) then pays for sharing on a small fraction of
// its values, while fields that do recur (namespaces, images, label
// values) keep being shared.
//
// Every method of a Table is safe for concurrent use. A Session holds its
// table until it ends, so that a decoder locks once per message, not once
// per value; it is for the goroutine that began it.
package dedup
