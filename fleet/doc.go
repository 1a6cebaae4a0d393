// Package fleet gives a program more than one Kubernetes cluster to work
// with: a Cluster is one of them (a client, an informer factory on that
// client, cache readers (a Cluster is an informer.Host), and a lifecycle of
// its own), and providers find
// clusters and keep a Set of them up to date.
//
// A manager.Manager is the usual Set: it holds its own (host) cluster and
// any number of others, added and removed while it runs, and engages each
// controller made with controller.Options.MultiCluster with every one of
// them. A reconciler finds the cluster of its Request by name:
//
//	cl, err := mgr.Cluster(req.Cluster) // "" is the host cluster
//	...
//	pods, err := informer.NewReader[*corev1.Pod](cl, informer.ReaderOptions{}) // the same Reader each time
//	...
//	pod, err := pods.Get(ctx, req.Key)
//	_, err = client.Typed[*corev1.Pod](cl.Client()).Namespace(pod.Namespace).Update(ctx, changed, metav1.UpdateOptions{})
//
// # Isolation
//
// Each cluster has its own informers, started by Start without waiting for
// any of them: a cluster that cannot be reached, or is slow to list, only
// keeps its own informers retrying. Nothing waits for the caches of every
// cluster at once; a controller's workers start on the host's caches and
// take each cluster's Requests as its informers deliver them.
//
// Stop ends a cluster: its informers stop and are waited for, their
// caches are freed (reads then fail with informer.ErrStopped), and the idle connections of its
// client's pool are closed (at once and again during the next seconds,
// as closed watch streams leave their connections), so nothing of it is
// left running. Its client keeps working (it owns no goroutine).
//
// # Connections
//
// A Cluster's client is a rest.Client, whose transport is shared by every
// client built from a rest.Config of equal transport settings: the typed,
// dynamic and metadata clients of one cluster share one connection pool
// (over HTTP/2, usually one TCP connection), however many are built.
//
// # Providers
//
// Kubeconfig adds one cluster per context of a kubeconfig file (every
// context, or those chosen) and follows the file: it reads it again every
// PollInterval and adds, replaces and removes clusters as contexts
// appear, change and disappear. Secrets watches kubeconfig Secrets in a hub
// cluster (labelled SecretLabel, the kubeconfig under SecretKey): a new
// Secret adds a cluster, a change of its kubeconfig replaces the cluster,
// deleting it removes the cluster; a kubeconfig that names an exec plugin
// or a local file is refused unless Secrets.AllowExecAndFiles (whoever
// writes such a Secret would otherwise choose what this process runs or
// which of its local credentials it sends where). A Provider of one's own
// implements Run against a Set.
//
// # Errors
//
// Errors about a cluster are *Error values naming it and wrapping
// ErrUnknown (a name not held), ErrDuplicate (a name held already),
// ErrRemoved (Start after Stop) or ErrInvalid.
package fleet
