// Package fake is an in-memory Kubernetes API server for fast unit tests.
//
// A Server speaks the same HTTP API as kube-apiserver, so every kubego
// client, informer and controller runs against it unchanged: start it,
// take its rest.Config, and build clients as usual.
//
//	srv := fake.NewServer(fake.Options{}, &corev1.Pod{...}, &appsv1.Deployment{...})
//	defer srv.Close()
//	c, err := rest.NewClient(srv.Config())
//
// Config starts a TLS listener on loopback (HTTP/2, a throw-away CA in the
// returned Config). The Server is also a plain http.Handler that can be
// mounted anywhere.
//
// # How a request is served
//
// Each step is one file, in the order a write goes through them, as in
// kube-apiserver's handler chain and registry:
//
//  1. route.go (ServeHTTP) parses the path into a request (resource from
//     the registry of resources.go and crd.go, verb, namespace, name,
//     subresource) and negotiates JSON or protobuf (codec.go); faults.go
//     fails or delays it when a test asked for it.
//  2. handlers.go, list.go, watch.go, patch.go and scale.go decode the
//     body and options per verb; reads take the store under the lock.
//  3. write.go is the generic registry: create, update and delete with
//     names, namespaces (namespaces.go), resourceVersions, generation,
//     finalizers and subresources (parts.go). What one kind adds is its
//     entry in the strategy table of strategy.go (Pod: pods.go, Service:
//     serviceips.go, Job: jobselector.go, CRD: crd.go and
//     crdapproval.go, the default admission plugins in admitplugins.go).
//  4. codec.go's normalize defaults a built-in object
//     (internal/defaults) and writes a custom resource through its
//     version's structural schema (internal/crdschema).
//  5. fieldmanager.go tracks managedFields; apply goes through the
//     same write path with its merged result.
//  6. admitwebhooks.go and admitmatch.go call the mutating, then the
//     validating admission webhooks (webhookcall.go: in process or over
//     HTTPS), with the lock released.
//  7. store.go stores the object at the next resourceVersion and logs the
//     event; events.go writes an Event's other views and crdconvert.go
//     a custom resource's other versions; watch.go streams the log to
//     watchers; gc.go and namespaces.go do kube-controller-manager's
//     deletions synchronously.
//
// # In process, in fake time
//
// InProcessConfig is the other way in: its Config's requests are served by
// the Server in the calling process, with no listener, socket or TLS,
// watches streamed and a closed body or cancelled context ending the
// server's side of the request. Since nothing waits on the network, a test
// can run clients, informers, controllers and a whole manager.Manager
// (with its probe and metrics addresses left empty) inside a
// testing/synctest bubble, where time.Sleep, timers and every clock.Real
// reading are fake: an hour of leases, requeues and backoff passes in
// milliseconds. Create the Server inside the bubble and close it there:
//
//	synctest.Test(t, func(t *testing.T) {
//		srv := fake.NewServer(fake.Options{}, objects...)
//		defer srv.Close()
//		mgr, err := manager.New(manager.Options{Config: srv.InProcessConfig()})
//		...
//		time.Sleep(time.Hour) // fake time: returns at once
//		synctest.Wait()       // until every goroutine is idle again
//	})
//
// Package kubegotest has helpers for such tests (Start, Settle). Like kube-apiserver, a new server holds the namespaces
// default, kube-system, kube-public and kube-node-lease, and an APIService
// (apiregistration.k8s.io/v1, available and local, with kube-apiserver's
// priorities) for each group-version it serves; a CustomResourceDefinition
// adds one (labelled automanaged, priorities 1000 and 100) for each
// group-version it serves, removed with the last definition serving it.
// Seeded objects are created
// as by POST; the namespaces they live in are created when missing.
// Everything is safe for concurrent use.
//
// # Webhooks
//
// Like kube-apiserver, the server calls the admission webhooks of the
// MutatingWebhookConfigurations and ValidatingWebhookConfigurations
// written to it, and the conversion webhook of a
// CustomResourceDefinition's spec.conversion, so an operator's webhooks
// run in its fake tests too. A webhook whose clientConfig.url (or, for a
// service reference, ServiceWebhookURL) is a key of Options.Webhooks is
// called in process, without TLS, through the http.Handler it maps to
// (the handlers of webhook/admission and webhook/conversion are such
// handlers): such tests run inside a testing/synctest bubble. Any other
// url is called over HTTPS, its certificate verified with the
// configuration's caBundle; a service reference that is not mapped fails
// as unreachable (the fake has no cluster network).
//
//	srv := fake.NewServer(fake.Options{Webhooks: map[string]http.Handler{
//		"https://webhooks.test/default": admission.New(admission.Defaulting[Widget](d, admission.TypedOptions{}), admission.Options{}),
//	}})
//	// then create the MutatingWebhookConfiguration naming that url
//
// Admission follows kube-apiserver: for each create, update (and patch and
// apply), and delete of a client — not for objects seeded through Add — the
// mutating webhooks are called in order (configurations by name, webhooks
// as listed) with an AdmissionReview v1, after the writer's managedFields
// are tracked (a webhook's change belongs to no manager) and before the
// registry's additions, seeing no uid or creationTimestamp on a create;
// their JSON patches are applied, the object defaulted, pruned and
// validated again, and a webhook of reinvocationPolicy IfNeeded is called
// once more when a later one changed the object. The validating webhooks
// then see the final object (uid and registry additions included); they are
// called all at once, as kube-apiserver calls them, and when several refuse
// the write answers with the first refusal to arrive. Rules (operations,
// groups, versions, resources with subresources and wildcards, scope),
// matchPolicy (Equivalent, the default, also sends a webhook whose rules
// name another served version of the same custom resource the request
// converted to that version — kind and resource that version's, requestKind
// and requestResource the request's — and converts a mutating webhook's
// patched object back; Exact does not), namespaceSelector (a Namespace
// matched by its own labels, a request of no namespace never left out),
// objectSelector (the object's or the old object's labels), timeoutSeconds,
// failurePolicy Fail and Ignore, sideEffects with dryRun (a dry run is
// refused by a webhook with side effects), matchConditions (CEL with
// object, oldObject and request, evaluated before the call: a false
// condition skips the webhook, an evaluation error fails the write with 403
// under failurePolicy Fail and skips the webhook under Ignore; a condition
// that does not compile is refused with its configuration, 422) and the
// admissionReviewVersions are honoured; a denial is answered as kube-apiserver words it ("admission
// webhook \"name\" denied the request: ..." with the webhook's code, at
// least 400) and a failed call as 500 "failed calling webhook"; warnings
// reach the client as Warning headers. A write of the scale subresource
// (update or patch) is sent to the webhooks whose rules name
// <resource>/scale as an UPDATE of an autoscaling/v1 Scale, the parent's
// Scale as the old object: the mutating webhooks see the Scale as written
// and may change it, the validating ones the Scale of the parent as
// updated. A DELETE of a collection sends each object's deletion, in name
// order, with no name, the request's namespace and the object as the old
// object; the first refusal answers the request with its error, the objects
// before it deleted and those after it kept, as kube-apiserver's registry
// does (which answers a collection delete that succeeds with the objects as
// they were listed before the deletions). The webhook configurations
// themselves and admission policies are never sent to webhooks.
// Differences: matchConditions have no authorizer variable, so a webhook
// configuration whose conditions use it is refused (501 Not Implemented,
// ErrUnsupportedWebhook) rather than stored and called for requests its
// conditions would leave out, and request is not typed (a misspelt field
// of it is an evaluation error, not a compile error); the conditions of the
// mutating webhooks are evaluated against the object as written, before
// the first call (kube-apiserver evaluates each webhook's against the
// object as the earlier webhooks left it); matchPolicy Equivalent finds no other version
// of a built-in resource (kube-apiserver sends a write of an autoscaling/v1
// HorizontalPodAutoscaler to the webhooks of autoscaling/v2, and of a
// core/v1 Event to those of events.k8s.io/v1, converted; the fake sends
// each only to the webhooks of its own group and version); every request is
// sent as the user system:admin; the deletions the fake's garbage
// collection and namespace cleanup make are not sent (on a cluster they are
// later requests of kube-controller-manager, whose refusal the garbage
// collector retries; here they happen inside the request that deleted the
// owner, so there is no later request to refuse and no retry); a write
// racing another write of the same object while webhooks are called is 409
// Conflict (kube-apiserver retries an unconditional update).
//
// The served versions of a custom resource are one storage: an object
// written through one version is read, listed and watched through the
// others, converted by the definition's conversion — None changes only
// apiVersion, Webhook sends a ConversionReview v1 and keeps, of the
// converted metadata, only labels and annotations, as kube-apiserver
// does. The fake converts when an object is written (one stored copy per
// version, at the same resourceVersion) where kube-apiserver converts
// when it is read, so a conversion webhook is called once per other
// version and write, not per read, and is called with the server's lock
// held: it must not call the fake server. A failed conversion fails the
// reads and writes of that object in that version with 500, as on
// kube-apiserver; a changed spec.conversion applies to objects written
// afterwards.
//
// # What it serves
//
// Every built-in kind of k8s.io/api (resource names and scope from the
// client package's generated table) in its GA versions, as a default
// kube-apiserver (Options.AllVersions adds the alpha and beta ones), in
// JSON and protobuf, chosen by Accept and Content-Type like
// kube-apiserver. Custom resources are served in JSON
// once registered: through Options.Resources or Register (kind, plural,
// scope, status and scale subresources), or by creating an
// apiextensions.k8s.io/v1 CustomResourceDefinition through the API, which
// serves its versions and is marked Established, as on a real server.
// Discovery answers /api, /apis, /api/v1, /apis/<group>[/<version>] and
// aggregated discovery (apidiscovery.k8s.io/v2) when Accept asks for it,
// with the verbs, short names, categories and (legacy form)
// storageVersionHash kube-apiserver gives the built-in resources, and its
// groups in its order: by the priority of their APIServices, not by name
// (clients resolve an ambiguous resource name by that order); a resource
// answers only the verbs it lists (405 for the others, as namespaces for
// a DELETE of the collection); /version, /healthz, /readyz and /livez
// answer too.
//
// /openapi/v2 (JSON, and gnostic protobuf when Accept asks for it) and
// /openapi/v3 (the index and one document per group-version) answer the
// documents a default kube-apiserver of the version testenv runs serves,
// from a copy captured from it and embedded in the package (one deflated
// entry per document, inflated per request), with the same status codes,
// media types, ETags and hash redirects: what kubectl's validation of
// create, apply and replace and kubectl explain read. A group-version of a
// CustomResourceDefinition gets a v3 document built from the definition's
// openAPIV3Schema the way kube-apiserver builds it, listed in the index
// while the definition exists.
//
// # Semantics
//
// One global resourceVersion counter orders every write, and the behaviour
// that depends on it follows kube-apiserver:
//
//   - optimistic concurrency: an update or patch carrying a stale
//     resourceVersion is 409 Conflict; built-in kinds accept unconditional
//     updates, custom resources require a resourceVersion (422);
//   - create sets uid, creationTimestamp and (for kinds that track it, and
//     all custom resources) generation 1; generateName picks a free name;
//     AlreadyExists, a missing namespace (404) and a terminating namespace
//     (403) are refused as on a real server;
//   - metadata.generation moves only when something outside metadata and
//     status changes; a no-op write keeps the resourceVersion and sends no
//     event;
//   - status and scale subresources: writes to the main resource keep the
//     stored status, writes to /status keep everything else, /scale reads
//     and writes spec.replicas as an autoscaling/v1 Scale;
//     pods/ephemeralcontainers writes only spec.ephemeralContainers,
//     pods/resize only the resources and resizePolicy of containers and
//     init containers (matched by name),
//     certificatesigningrequests/approval only the metadata and
//     status.conditions (without filling in their timestamps), and
//     namespaces/finalize (update only) everything but the status: a
//     namespace's spec.finalizers change only there; serviceaccounts/token
//     (create only) issues a token (see below); pods/binding and the
//     bindings resource (create only) set an unbound pod's spec.nodeName
//     and its PodScheduled condition, as a scheduler does (409 once bound);
//     pods/log serves what Server.SetPodLog and AppendPodLog wrote for a
//     container, with container, tailLines, limitBytes and follow;
//   - the workload rules tests trip over are validated as kube-apiserver
//     validates them, with its messages: a Deployment's, ReplicaSet's,
//     StatefulSet's or DaemonSet's selector (required, not empty,
//     selecting the template's labels, immutable), its template's
//     restartPolicy (Always; a Job's and a CronJob's OnFailure or Never),
//     negative counts, and the counts of a status written through the
//     status subresource (available above ready, ready or updated above
//     replicas);
//   - deletion with finalizers sets deletionTimestamp; new finalizers are
//     refused then; the write that removes the last finalizer deletes the
//     object (one DELETED event with the last stored state, at a new
//     resourceVersion; the writer gets what it wrote, at the
//     resourceVersion it replaced); a Pod bound to
//     a node is deleted gracefully (no kubelet ever confirms, as on a
//     control plane without nodes) unless gracePeriodSeconds is 0;
//   - garbage collection and namespace cleanup, which a real cluster runs in
//     kube-controller-manager, are emulated synchronously: deleting an owner
//     deletes dependents whose owners are all gone (Background and
//     Foreground) or strips the reference (Orphan); deleting a namespace
//     deletes its contents and finalizes it once empty;
//   - managedFields are maintained on every write (the fieldManager
//     parameter, else the User-Agent's program name);
//   - Events are one storage served through core/v1 and events.k8s.io: an
//     Event written through either group is read, listed, watched and
//     deleted through the other (same uid and resourceVersion, fields under that
//     group's names: involvedObject is regarding, message is note,
//     reportingComponent is reportingController, source, firstTimestamp,
//     lastTimestamp and count are the deprecated* fields), with each
//     group's field selectors;
//   - a CustomResourceDefinition of a group of the Kubernetes project
//     (k8s.io, kubernetes.io and their subdomains) needs the annotation
//     api-approved.kubernetes.io set to a URL or to a reason starting with
//     "unapproved": without it create is 422 Invalid, and so is an update
//     that changes the annotation's state to missing or malformed;
//   - an immediate DELETE answers with a Success Status, except for the
//     kinds whose registry returns the deleted object (Pod, ServiceAccount,
//     StorageClass); an object only marked for deletion is returned as is;
//     a DELETE of a collection answers with the list of deleted items;
//   - server-side apply to the status subresource records the applier's
//     ownership of the status fields, so a second manager's apply of the
//     same field conflicts (409) and a field the applier stops sending is
//     removed, as on the main resource;
//   - built-in kinds are defaulted on every write (create, update, patch
//     and apply, in JSON and protobuf alike, and objects seeded through
//     Add) as kube-apiserver defaults their GA versions: a Pod and the pod
//     template of every workload (containers, init and ephemeral
//     containers: pull policy from the image tag, termination message,
//     ports' protocol, probes, env field references; volumes' modes and
//     types, an empty volume as emptyDir; restart and DNS policy,
//     scheduler, security context, grace period; a Pod also gets requests
//     from its limits and enableServiceLinks), Deployment, ReplicaSet,
//     StatefulSet, DaemonSet, ReplicationController, Job, CronJob,
//     PodTemplate, Service, Secret (type, and stringData moved into
//     data), PersistentVolumeClaim, PersistentVolume, Namespace (the
//     kubernetes.io/metadata.name label), Endpoints, EndpointSlice, Node,
//     LimitRange, ResourceQuota (quantities rounded up to milli-units),
//     HorizontalPodAutoscaler (v1 and v2), NetworkPolicy, IngressClass,
//     RoleBinding, ClusterRoleBinding, StorageClass, CSIDriver,
//     PriorityClass, webhook configurations and admission policies and
//     their bindings, FlowSchema, PriorityLevelConfiguration,
//     VolumeAttachment, PodCertificateRequest, ResourceClaim,
//     ResourceClaimTemplate, ResourceSlice and DeviceTaintRule (taints
//     stamped with Options.Clock's time), and CustomResourceDefinition
//     (singular name, list kind, conversion strategy None, a conversion
//     webhook service's port);
//   - what kube-apiserver's registries and default admission plugins add
//     to a new object is added too: a Service's cluster IPs, IP families
//     and their policy, node ports and health check node port (from
//     10.0.0.0/24 and 30000-32767, as testenv's kube-apiserver, lowest
//     free first where a real server picks at random; an update that
//     leaves them out keeps them), a Job's selector and uid and name
//     labels (on the Job too when it came without labels), a DaemonSet's
//     template generation annotation (moved by template changes), a
//     Pod's priority and preemption policy from its priority class (an
//     unknown class is 403) and its tolerations of not-ready and
//     unreachable nodes, a Node's not-ready taint (a Node keeps the
//     status it is created with), the protection finalizers of claims
//     and volumes (dropped when they are deleted, as the protection
//     controller does for unused ones; the fake drops them also for a
//     claim a Pod still uses) and a volume's phase transition
//     time; the writer does not own these in managedFields. The
//     conformance case BuiltinKindsAreStoredDefaulted compares one
//     object of each of these kinds (and of a few kinds stored as
//     written) with what kube-apiserver stores;
//   - a custom resource is written through its version's structural
//     schema, as kube-apiserver does: unknown fields pruned (except under
//     x-kubernetes-preserve-unknown-fields, and the apiVersion, kind and
//     metadata of x-kubernetes-embedded-resource), defaults set (also for
//     a null that is not nullable), then types, required fields, enums,
//     bounds, lengths, patterns, the string formats kube-apiserver knows
//     (date-time, uuid, ipv4, byte, k8s-short-name, ...; through the same
//     format registry) and the ranges of the int32 and float formats,
//     item and property counts, and lists of type set and map (no
//     repeated item or key; an update is checked only if the object it
//     replaces passes) checked, then the CEL rules of
//     x-kubernetes-validations at every level evaluated (message,
//     messageExpression, reason, fieldPath; transition rules reading
//     oldSelf only on update, where an old value corresponds;
//     optionalOldSelf; kube-apiserver's per-call cost limit and per-object
//     budget; an update that leaves a value unchanged is not refused for
//     it, except by a transition rule): a 422 Invalid with one cause per
//     field, of the real server's cause types, field paths and messages.
//
// Accept asking for PartialObjectMetadata or PartialObjectMetadataList
// (the metadata client) in meta.k8s.io/v1 or v1beta1 is answered with
// metadata only, in JSON; Table and other conversions are 406.
//
// Lists take label selectors, the field selectors the real server supports
// per kind (unsupported fields are 400), limit and continue (opaque tokens
// naming a consistent snapshot; as kube-apiserver pages through storage, a
// full page continues while any object follows, selected or not, so a
// selecting list's last pages may be short or empty; a list at
// resourceVersion "0" ignores limit, as kube-apiserver's watch cache
// does), and resourceVersion with resourceVersionMatch Exact or
// NotOlderThan. Watches start from a
// resourceVersion, send synthetic ADDED events for "" and "0", honour
// allowWatchBookmarks (periodic bookmarks every Options.BookmarkInterval)
// and sendInitialEvents (ending, when bookmarks are allowed, with the
// bookmark annotated k8s.io/initial-events-end), and follow objects
// entering and leaving a selector as ADDED and DELETED. The server keeps the last
// Options.HistoryWindow events: a watch, exact list or continue token older
// than that gets 410 Expired (for a continue token, with the token in
// metadata.continue that lists the rest as it is now, as kube-apiserver
// does). Watch frames are byte-compatible with
// kube-apiserver's (newline-delimited JSON WatchEvents; protobuf WatchEvents
// each behind a 4-byte length).
//
// Patches: JSON patch (RFC 6902) and merge patch (RFC 7386) via
// gopkg.in/evanphx/json-patch.v4, strategic merge patch via apimachinery's
// strategicpatch for built-in kinds (415 for custom resources, as on a real
// server), and server-side apply through apimachinery's managedfields and
// sigs.k8s.io/structured-merge-diff/v6, with conflicts (409 naming the
// other managers and fields) and force.
//
// # Fault injection
//
// FailNext makes the next N requests matching a Match (verb, group,
// resource, subresource, namespace, name) fail with a given Status; Delay
// adds latency to matching requests until removed. Both are deterministic
// and safe to use from concurrent tests.
//
// # Conformance and known differences
//
// The package's tests hold a conformance suite written once against a
// *rest.Config and run against the fake (TestConformanceFake, in JSON and
// in protobuf) and against a real kube-apiserver with etcd started by
// testenv (TestConformanceReal). docs/fake-fidelity.md in the repository
// catalogues where the fake differs from kube-apiserver: the suite's
// exception lists (kept in step with it by a test) and the known
// differences no case covers.
package fake
