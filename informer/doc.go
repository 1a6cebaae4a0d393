// Package informer keeps local caches of Kubernetes resources in step with
// the API server and tells controllers what changed.
//
// # The pipeline
//
// One [Informer] per resource does the whole job:
//
//	API server ──ListerWatcher──▶ reflector ──▶ store (+ indexes) ──▶ change batches ──▶ one buffer + goroutine per Handler
//
// Each stage (only the ends, ListerWatcher and Handler, are API; the
// engine between them is internal):
//
//   - A [ListerWatcher] is the only thing the package needs from a client: a
//     LIST (one page) and a WATCH. The client packages adapt the generic
//     typed client, the dynamic client (*unstructured.Unstructured) and the
//     metadata client (*metav1.PartialObjectMetadata) to it; tests use a fake.
//     This package never imports a transport.
//   - The reflector fetches the complete state, by a streaming watch
//     (sendInitialEvents) with a bounded wait for its end bookmark and a
//     fallback to a paginated LIST, then watches from that resourceVersion
//     (a streaming watch the server compressed is reopened plain there:
//     kube-apiserver compresses each later event of it on its own).
//     A dropped watch resumes where it stopped; 410 Gone relists from the
//     last version, then from the latest; errors back off exponentially with
//     jitter. It is an explicit state machine (a phase plus one step
//     function) with the clock injected, so tests run in fake time.
//   - The store is written by one goroutine and read by any number without
//     locks: a copy-on-write tree of small shards, so a reader listing ten
//     thousand objects never delays a write, and every read sees one
//     consistent point in time. A complete state (the initial list, a
//     streaming list's initial events, a relist) is written into the
//     store's next version as it arrives, page by page or event by event,
//     and published as one atomic batch once complete: until then readers
//     see the previous content, and a list that fails or expires halfway
//     leaves it as it was. The reflector holds no list of its own;
//     unchanged objects keep their cached pointer (or encoding), so a
//     relist does not double memory.
//   - Every write yields changes (Added, Updated, Deleted, Replaced,
//     Sync), the equivalent of client-go's DeltaFIFO: in order per key,
//     deletes never repeated, a relist delivered as one batch including a
//     Deleted with FinalStateUnknown for each object that vanished while the
//     watch was down.
//   - Each [Handler] has its own unbounded buffer and goroutine: a slow
//     handler only delays itself, and no user code runs on the informer's
//     goroutine (except Transform, which runs before storing).
//
// A [Factory] hands out shared informers: one per Go type (or resource),
// namespace, selectors and transform in a process, created on demand with
// [Acquire], [AcquireResource] (unstructured) and [AcquireMetadata], and freed by
// reference counting ([Informer.Release]). It obtains ListerWatchers from a
// [Backend], which the client packages implement.
//
// # Contracts
//
//   - Objects handed out (to handlers, by a [Lister] or a [Reader]) of a
//     built-in kind (any type with a protobuf encoding) come from a compact
//     cache (see Memory): each is the caller's own, decoded for that read,
//     and may be modified. Objects of a decoded cache (custom resources'
//     Go types, unstructured objects, or Options.Decoded) are shared with
//     the cache and other readers and are read-only: DeepCopy before
//     changing one. Under go test (testing.Testing) a mutation detector
//     watches decoded caches by default; it names the key and the changed
//     fields (*[MutationError]) through Options.MutationReporter, returns
//     them from [Informer.CheckMutations] and from Run, and logs them at
//     error level.
//   - Handler callbacks of one handler run one at a time, in cache order.
//     OnDelete receives the last known object and a finalStateUnknown flag;
//     there is no tombstone type to unwrap.
//   - [Informer.WaitForSync] returns nil or a *[SyncError] carrying the
//     cause (an *apierrors.StatusError for 403 or 404,
//     [ErrInitialEventsNotFinished], [ErrNotStarted], ...): apierrors.IsForbidden
//     and errors.Is see through it. There is no bare boolean. It does not
//     wait for its context when waiting cannot help: after
//     Options.FailFastAfter (default 3) calls in a row failed with a
//     permanent error (401, 403, 404, or one wrapping [ErrPermanent]), it returns at once
//     with SyncError.Permanent set, about one backoff delay after the
//     first 403; the informer keeps retrying in case RBAC is granted or a
//     CRD installed later.
//   - The cache holds only objects of what it watches: an object without a
//     name, from another namespace than ReflectorOptions.Namespace (a
//     Factory sets it), or of another kind (an unstructured object whose
//     apiVersion or kind is not the resource's; a typed one stating another
//     kind) is refused, counted ([Informer.Refused], *[RefusedError]) and
//     logged at warn level once. A watch event without a name ends the
//     watch, which resumes from the last resourceVersion; an object without
//     a resourceVersion never moves the resume point. A watch that does not
//     open within ReflectorOptions.WatchOpenTimeout is abandoned
//     ([ErrWatchStalled]) and opened again.
//   - metadata.managedFields are dropped before storing unless
//     Options.KeepManagedFields (SharedOptions.KeepManagedFields) is set.
//   - Everything stops when the context given to Run (or Factory.Start)
//     is done; Run returns after every handler goroutine has returned.
//
// # Reading the cache
//
// A [Lister] ([Informer.Lister], for code that holds an informer) reads
// without waiting for sync: slices (List) or iteration without allocating
// (All), Get returning (object, found), Namespace to narrow it, and
// ByIndex, IndexKeys and IndexValues for the indexes given in
// Options.Indexers.
//
// A [Reader] is what a reconciler holds: made once at setup on a [Host] —
// a manager.Manager, a fleet.Cluster or a Factory — ([NewReader],
// [NewResourceReader], [NewMetadataReader]), it reads the host's shared
// informer of its type, with the options the type was declared with
// ([Declare], [Factory.Declare]), with a context: Get by key, List by namespace and label selector, ByIndex by
// a named index. Its first reads wait for the cache to sync, bounded by
// ReaderOptions.SyncTimeout, and fail with an error holding the
// informer's *[SyncError] (errors.As finds it; errors.Is(err, ErrNotSynced) holds) (the cause, not a bare timeout); an object the
// cache does not hold wraps [ErrNotFound] and is a 404 NotFound
// Status, which apierrors.IsNotFound
// recognises, while a resource the server does not serve never reads as a
// missing object. With ReaderOptions.Lazy the informer is created, and
// starts, on the first read. Reads never go to the server: a live read is
// a client call.
//
// # One informer per type
//
// Two parts of a program asking for the same type with different options
// get two watches and two caches, each holding its own copy of the
// objects; a reader of one does not see what the other's controller sees.
// So a type's options are declared once ([Factory.Declare] with [Declare],
// [DeclareResource] or [DeclareMetadata]; manager.Manager.Declare), and
// every request without options of its own — a controller's source, a
// [Reader] — gets the declared informer. FactoryOptions.OneInformerPerType
// (always set by manager.Manager) makes a second option set an error: the
// declaration, or else the first request, for a Go type (a resource, for
// unstructured and metadata informers) fixes its namespace, selectors,
// transform, managedFields and sharing choices for the factory's
// lifetime, and a request with others is refused with an
// *[OptionsConflictError] naming both option sets. Indexers merge: a new name is added to the
// one informer, the same name with another function is a conflict.
// Functions are compared by their code, so two closures of one function
// literal count as the same one. The typed, unstructured and metadata
// forms of one resource are distinct informers (distinct Go types): pick
// one form per resource.
//
// # Memory
//
// A cache holds every object of a resource, so its size is what an
// informer costs. managedFields are dropped (above), and then the cache
// keeps objects in one of two forms.
//
// Compact, the default for every type with a protobuf encoding (the
// built-in kinds): each object is kept as its
// protobuf encoding, a few times smaller than the decoded structs, and
// decoded on every read. Labels are matched on the bytes, so a List with a
// selector decodes only what matches; the namespace, name and
// resourceVersion are read in place; the values of Indexers and
// Transform's result are computed once, when an object is stored; each
// object of a list being received is encoded as it arrives and its decoded
// form dropped, so the sync's peak holds little more than the cache it
// fills; a relist keeps the bytes of every unchanged object (with the
// client packages' ListerWatchers the event is not even decoded). Each read and each
// handler callback gets an object of its own, whose strings view the
// cached bytes but whose structs, slices and maps nobody else holds:
// modifying it is safe, so the rule "never modify an object from a cache"
// does not apply and there is nothing for the mutation detector to find.
// The price is a decode per object read, and per handler for every event:
// a Get costs microseconds, a List of the whole cache a decode of every
// object in it. The encodings are packed into shared chunks (up to 64
// KiB; an encoding of 16 KiB or more has an allocation of its own), so
// that each costs its bytes and not the allocator's rounding; the cache
// keeps no key beside an object (it is read from the encoding). A large
// encoding is compressed: when the part after the metadata is 2 KiB or
// more (ConfigMaps and Secrets of a few KiB, mostly) and compressing it
// (Zstandard at its fastest level) saves at least an eighth, that part is
// kept compressed, and the metadata as it is, so the namespace, name,
// resourceVersion and labels are still read in place; a Pod of a
// kilobyte or two is never compressed. A read of a compressed object
// decompresses it into a buffer of its own first: an allocation of its
// size and one or two microseconds per KiB on top of the decode (storing
// one costs its compression, a few microseconds per KiB).
// Options.DisableCompression (SharedOptions) keeps every encoding plain.
// Cached
// bytes never change: when a sixth of a chunk or more holds objects since
// updated or deleted, the informer copies the encodings it still holds
// into a chunk being filled and lets the old one go, which the objects
// readers still hold keep alive. Under churn the chunks stay within a
// fifth above the stored bytes, plus the chunks being filled and what was
// written since the informer last counted (a sixteenth of the stored
// bytes at most).
//
// Retention: the strings of an object read from a compact cache view the
// chunk it was read from (a compressed object's, the buffer it was
// inflated into, which is its own), so a string kept after the object is
// dropped keeps that chunk (at most 64 KiB) in memory. A program that keeps
// strings of many objects for long, after the cache has moved on (names
// of deleted objects in a map of its own, say), should keep copies
// (strings.Clone). The controller package copies the keys it queues.
//
// Decoded, for types without a protobuf encoding (custom resources' Go
// types, unstructured objects) and for any type with Options.Decoded
// (SharedOptions.Decoded): the objects are kept as Go structs, shared by
// every reader, and reads cost nothing but are read-only. Choose it for a
// reader or handler that goes through the whole cache often (a List of
// every object per reconcile, a resync handler reading everything). Two
// things keep a decoded cache small:
//
//   - equal values are shared between cached objects: every string, every
//     small string map (labels, annotations, selectors) and every resource
//     list (requests, limits) that equals one already seen is replaced by
//     that one, so the replicas of a Deployment hold their image, env names,
//     labels and requests once. Quantities get their canonical string fixed
//     before they are shared, so String on a cached Quantity never writes.
//     Sharing relies on cached objects being read-only (DeepCopy before
//     changing them) and is turned off by Options.DisableSharing. With the
//     client packages' ListerWatchers it happens while protobuf events are
//     decoded, so a recurring value is never allocated at all; with a
//     Transform it happens after the transform has run;
//   - a relist keeps the cached object for every item whose
//     resourceVersion did not change; with the client packages'
//     ListerWatchers such items are not even decoded, and managedFields
//     are cut from protobuf and JSON events before decoding. (The reflector
//     passes these watch hints to those ListerWatchers only; any other
//     ListerWatcher is watched plainly and its objects are shared after
//     decoding.)
//
// # Testing
//
// Package informertest has an in-memory Tracker that implements
// ListerWatcher (pagination, resume from history, 410, streaming lists,
// bookmarks, injected failures) and a Backend for factories, so informers and
// controllers can be tested without an API server, in fake time.
//
// # Pitfalls made impossible
//
// Forgetting to start an informer shows up as [ErrNotStarted] from
// WaitForSync; a handler added late still sees every object (synthetic adds
// with initial=true) and its [Registration] reports its own HasSynced and
// waits for it (WaitForSync: the handler has been given the initial state,
// not only the cache); a
// removed handler receives nothing more; two parts of a program asking for
// the same informer share one watch and one cache, and with
// OneInformerPerType asking for a type with other options is an error, not
// a second cache; a server that ignores sendInitialEvents costs one
// bounded wait, not a hang.
package informer
