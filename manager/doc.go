// Package manager hosts the controllers of one process: the process-level
// concerns around package controller's reconcile loops.
//
// A Manager owns what controllers of one process share: one client (built
// from a rest.Config, with a round-tripper counting requests by method and
// status code), one informer factory, and one Prometheus registry (its own,
// never the global one). It runs controllers and any other Runnable, serves
// /healthz, /readyz (failing until every informer of its cache has
// synced) and /metrics, and with Options.LeaderElection runs
// the runnables that need leadership only while it leads the Lease.
//
//	ctx, stop := manager.SignalContext(context.Background())
//	defer stop()
//	mgr, err := manager.New(manager.Options{Config: cfg, MetricsAddr: ":8080", HealthAddr: ":8081"})
//	...
//	_, err = mgr.NewController(controller.Options{Name: "web", Reconciler: r, Sources: sources})
//	...
//	err = mgr.Start(ctx)
//
// Start returns when its context is done (SignalContext gives one
// cancelled by SIGINT or SIGTERM), when a runnable fails, or with an error
// wrapping leaderelection.ErrLeaseLost. When leadership is lost, the leader-only
// controllers are aborted (controller.Controller.StartAbortable): their
// reconciles in flight are cancelled at once, without the drain a normal
// shutdown gives them.
//
// # Standby and hand-over
//
// A replica that does not lead is a standby. By default it keeps the
// caches of its leader-only controllers synced (their informers run on
// every replica), so that when it is elected its first reconcile needs no
// list from the API server; it reconciles nothing before. That costs
// every standby the memory of those caches: Options.Standby (for every
// controller) or controller.Options.Standby (for one) set to
// controller.StandbyCold takes the informers only on election instead.
// With leaderelection.Config.ReleaseOnCancel a leader that stops
// gracefully releases its Lease, and a standby, which watches the Lease,
// takes it at once. docs/failover.md has the measurements.
//
// Controllers and runnables may be added while the Manager runs
// (NewController, Add): they start at once (a leader-only one joins the
// current term if this replica leads, and ends with it), their informers
// start on the running factory, and Start waits for them to drain like
// the others. Add reports ErrStopped once the Manager is stopping.
//
// # Many clusters
//
// Besides its own (host) cluster a Manager holds any number of others,
// each a *fleet.Cluster with its own client, informer factory and
// lifecycle: AddCluster, ReplaceCluster and RemoveCluster change them
// while it runs, and AddProvider runs a fleet.Provider that does so
// (fleet.Kubeconfig: the contexts of a kubeconfig; fleet.Secrets:
// kubeconfig Secrets in the host cluster). Every controller made with
// controller.Options.MultiCluster watches its sources in each cluster,
// present and future; its Requests name their cluster, and the reconciler
// finds that cluster's client and readers with Cluster(req.Cluster). A
// cluster that cannot be reached stalls no other, and /readyz does not
// wait for it (its sync state is the kubego_cluster_synced gauge).
// Removing a cluster stops its sources and informers, drops its queued
// Requests and closes its connections.
//
// # Reading the cluster
//
// A Manager is an informer.Host: informer.NewReader[T](mgr, ...) gives a
// reconciler a cache-backed reader of one type (Get by key, List by
// namespace and labels, ByIndex), made once at setup;
// informer.NewMetadataReader and NewResourceReader do the same for the
// metadata-only and unstructured forms:
//
//	deployments, err := informer.NewReader[*appsv1.Deployment](mgr, informer.ReaderOptions{})
//	...
//	d, err := r.deployments.Get(ctx, req.Key) // in Reconcile
//
// It reads the informer the controllers' sources of that type use. A
// type's informer options (namespace, selectors, transform, indexes) are
// declared once, in Options.Declarations; sources and readers name the
// type alone, so a second watch and cache of a type cannot be asked for by
// mistake (a request with other options, through informer.Acquire on
// Factory(), is refused with an *informer.OptionsConflictError naming
// both). Only types asked for are cached: no read starts a cluster-wide
// watch of a type behind the program's back (a lazy Reader,
// informer.ReaderOptions.Lazy, starts its informer on its first read).
// The typed, unstructured and metadata forms of one resource are distinct
// informers, never converted into one another: the Reader's type says
// which cache it reads, and a program should pick one form per resource.
// A read waits for the first sync and returns the informer's cause if it
// cannot happen (403, resource not served), and a missing object is
// apierrors.IsNotFound. Reads see the cache, which lags behind writes; a
// live read is one call away on the shared client:
//
//	d, err := client.Typed[*appsv1.Deployment](mgr.Client()).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
//
// Coming from controller-runtime: there the manager's client reads from
// the cache by default, a Get of a type nobody watches quietly starts a
// cluster-wide informer for it (needing list and watch on every
// namespace), and typed, unstructured and metadata reads of one kind fill
// three caches. Here Client() always talks to the server, cache reads go
// through a Reader of a type whose options are declared once, and a
// second option set for a type is an error rather than a second cache.
//
// # Client, field manager and events
//
// Every write of the shared client names Options.Client.FieldManager as its
// field manager unless the call names one; without it the server names
// the writer after the User-Agent, which by default (rest.DefaultUserAgent)
// starts with the program's name. EventRecorder(name) gives the recorder
// of a reporting controller, made on first use; the Manager writes what
// the recorders hold when it stops, after its runnables have returned and
// within GracefulShutdownTimeout, so a program never shuts one down
// itself.
//
// # Metrics
//
// The registry holds, under the names client-go and controller-runtime
// use: rest_client_requests_total{method,code} and
// rest_client_request_duration_seconds{verb} for the shared client;
// workqueue_* and controller_runtime_* of every controller made with
// NewController (see package controller); kubego_informer_synced{informer};
// leader_election_master_status (with leader election);
// event_recorder_dropped_total and event_recorder_writes_total of each
// EventRecorder (label controller); and, in a
// registry of the Manager's own, the Go runtime and process collectors.
//
// The metrics server is plain HTTP by default. With Options.SecureMetrics
// it serves HTTPS (certificate files reloaded when they change, or a
// self-signed one) and admits only callers the API server authenticates
// and authorizes (package authfilter: TokenReview, then a
// SubjectAccessReview for the path), as metrics are protected in real
// clusters. Options.Pprof adds /debug/pprof/ behind the same check; without
// SecureMetrics it is allowed on a loopback address only.
//
// # Tracing
//
// With Options.TracerProvider set to an OpenTelemetry provider, each API
// request of the shared client is a client span ("HTTP <method>", with
// the status code), and the Manager's controllers trace their reconciles
// with it too, so a reconcile's requests are children of its span. Each
// request carries its span to kube-apiserver in a W3C traceparent header,
// so the server's spans of it (kube-apiserver's APIServerTracing) join the
// trace. Without a provider nothing is traced and nothing is paid.
package manager
