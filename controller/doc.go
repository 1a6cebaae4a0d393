// Package controller runs reconcilers: the loop that ties informers, a work
// queue and a client into a Kubernetes controller. Package manager hosts
// controllers in a process (shared client and cache, probes, metrics
// serving, signals, leader election).
//
// # The loop
//
// A controller's author writes one method:
//
//	func (r *MyReconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error)
//
// and says which events enqueue which Requests, here on a
// *manager.Manager (controller.New takes the same Options and any
// informer.Factory):
//
//	c, err := mgr.NewController(controller.Options{
//		Name:       "web",
//		Reconciler: r,
//		Sources: []controller.Source{
//			controller.For[*appsv1.Deployment]{},                      // the object itself
//			controller.Owns[*appsv1.ReplicaSet]{},                     // its controller owner
//			controller.Watches[*corev1.ConfigMap]{Map: configUsers},   // any mapping
//		},
//		MaxConcurrentReconciles: 4,
//	})
//
// A reconciler that needs only metadata (labels, annotations, owners)
// should use ForMetadata instead of For: its informer lists, watches and
// caches *metav1.PartialObjectMetadata, so the API server sends and the
// process decodes and keeps a fraction of each object.
//
// Everything else is the package's: each Source registers a handler on a
// shared informer; the handler filters events through the source's
// Predicates and adds Requests to the controller's queue, nothing more.
// Workers take Requests from the queue, call Reconcile, and do the
// bookkeeping from its outcome (see Reconciler): Forget on success, a
// delayed add for Result.RequeueAfter, a rate-limited add for an error or
// Result.Requeue, nothing for a TerminalError, and Done in every case.
//
// A Request is the object's informer.Key (namespace and name), not an
// object: the reconciler reads the current state from the cache when it
// runs, so a burst of events for one object costs one reconcile, and a
// reconcile always sees the latest state. It reads it through an
// informer.Reader made on the same host (informer.NewReader[T](mgr, ...)),
// which shares the informer of the sources of the same type:
//
//	d, err := r.deployments.Get(ctx, req.Key) // apierrors.IsNotFound(err): deleted
//
// A type's informer options (namespace, selectors, transform, indexes)
// are declared once, where the cache is made (manager.Options.Declarations,
// informer.Factory.Declare); sources and readers refer to the type alone,
// so they cannot ask for a second cache of it by mistake.
//
// # Many clusters
//
// With Options.MultiCluster the sources are templates: the controller
// watches them on the factory given to New (the host cluster; not with
// SkipHostCluster) and, through Engage, in any number of other clusters,
// each with its own copies on that cluster's factory. Request.Cluster
// names the cluster of each Request ("" for the host), so equal keys in two
// clusters are two Requests, and logs and spans carry it
// ("namespace/name@cluster"). One queue and one set of workers serve every
// cluster, the queue taking the clusters in turn (Options.Lane); only the host's sources must sync before the workers start, so
// a cluster that is slow or unreachable holds up nothing but its own
// Requests. Disengage stops a cluster's sources, cancels its reconcile in
// flight (not retried) and drops its queued Requests. A manager.Manager
// engages its MultiCluster controllers with every cluster it holds (see
// package fleet).
//
// # Events from outside the cluster
//
// Channel makes a source of a Go channel: each value (a webhook call, a
// message from another system) enqueues the Requests a function maps it
// to. The source stops reading when the channel is closed or the
// controller stops.
//
// # Live changes first
//
// A controller restarting over many existing objects queues one Request
// per object from the informers' initial lists; a change made meanwhile
// waits behind all of them. With Options.PriorityQueue that backlog
// (initial lists, resyncs, relisted objects that did not change) is
// queued at low priority, and every other event at normal priority, so
// the change is reconciled next (workqueue.Queue.AddLow). The queue's
// guarantees hold across priorities.
//
// # Impossible by construction
//
// These are the classic ways a controller written on client-go breaks.
// Here each is either impossible or loud:
//
//   - Forgetting Done or Forget: user code never touches the queue; the
//     loop calls Done exactly once per Get, even when Reconcile panics.
//   - Starting workers before the caches are synced: Start waits for every
//     source's informer to sync and for every source's handler to have
//     been given the informer's initial objects, so each initial Request
//     is in the queue (deduplicated: one reconcile per object) before the
//     first worker starts; a cache that cannot
//     sync (403, resource not served) fails Start with a *SyncError naming
//     the cause, instead of a controller that silently does nothing.
//   - Two workers on one object: the queue never hands a Request to a second
//     worker while the first holds it, and re-adds during processing run
//     again after it (no lost update).
//   - Slow work in event handlers: handlers are the package's and only
//     enqueue; predicates and Watches mappings are the only user code on a
//     handler's goroutine, and each source's handler has its own buffer and
//     goroutine in the informer, so it cannot stall the cache.
//   - Tombstones (DeletedFinalStateUnknown): deletes arrive as objects
//     (Event.FinalStateUnknown tells a delete noticed by a relist), and
//     Reconcile only ever sees a Request.
//   - Mutating cached objects: a built-in kind's cache is compact by
//     default, so each read is the caller's own object and may be
//     modified; objects of a custom resource's Go type (or of a type
//     declared Decoded) are shared and read-only, and under go test the
//     informer's mutation detector reports a change, naming the object and
//     field. Write through a patch or server-side apply computed from the
//     desired state, or DeepCopy first.
//   - Retry limits that are too aggressive: retries use per-Request
//     exponential backoff (5ms doubling to 1000s) under an overall bucket
//     (10/s, burst 100), so a failing object is retried forever but
//     cheaply, and a mass failure does not hammer the API server. Errors
//     that cannot heal are returned as TerminalError and not retried.
//   - A panic killing the process: it is recovered, logged with its stack,
//     counted and retried like an error (Options.PropagatePanics opts out).
//   - Several informers for one resource: sources take their informers
//     from a shared Factory, one per type and options per process; on a
//     manager.Manager's factory one per type, and a source asking for a
//     type with other options than the type already has fails New with an
//     *informer.OptionsConflictError.
//
// # Shutting down
//
// When Start's context is done, workers stop taking Requests at once, and
// reconciles in flight get Options.DrainTimeout to finish before their
// context is cancelled. StartAbortable adds a second context that cancels
// them at once instead: a manager with leader election uses it when
// leadership is lost, since a replica that is no longer leader must stop
// acting before another one starts.
//
// # Metrics and tracing
//
// With Options.Registerer set, a controller registers its workqueue's
// series (package promqueue, "name" label) and the reconcile series under
// the names controller-runtime uses, so its dashboards work:
// controller_runtime_reconcile_total{controller,result},
// controller_runtime_reconcile_errors_total,
// controller_runtime_terminal_reconcile_errors_total,
// controller_runtime_reconcile_panics_total,
// controller_runtime_reconcile_time_seconds,
// controller_runtime_active_workers and
// controller_runtime_max_concurrent_reconciles. Controllers sharing a
// registry share the series, told apart by the "controller" label.
//
// With Options.TracerProvider set to an OpenTelemetry provider, each
// reconcile is a span ("Reconcile <name>", with the request and its
// result), the parent of the spans of the API requests made with its
// context. Without a provider nothing is traced and nothing is paid.
//
// # Without a manager
//
// New builds a Controller on any informer.Factory; its Start also starts
// the factory (a no-op if it runs already). Tests can give the factory an
// in-memory informer.Backend and run everything under testing/synctest.
package controller
