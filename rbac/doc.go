// Package rbac derives the RBAC rules a program needs from what it
// declares, records the requests it actually makes, and checks the one
// against the other, so that its Role is both sufficient and minimal and
// no one writes it by hand.
//
// # Derive
//
// A [Permission] is verbs on a resource (in a namespace, or everywhere)
// or on a non-resource URL. A manager.Manager knows most of a program's
// permissions: manager.Manager.Permissions lists list and watch of every
// type its informers cache (declared with Manager.Declare, watched by a
// controller's sources, read through readers), limited to the namespace
// each informer is; the leader election Lease; Events when an event
// recorder was made; the reviews of secure metrics. The writes are the
// author's to name, next to the code that makes them (a runnable other
// than a controller has a Permissions method: manager.Permitted):
//
//	mgr.NewController(controller.Options{
//		Sources:     []controller.Source{controller.For[*corev1.ConfigMap]{}},
//		Permissions: []rbac.Permission{{Resource: "configmaps", Verbs: []string{"update"}, Namespace: ns}},
//		…
//	})
//
// [Derive] turns permissions into a [Manifest]: a ClusterRole for those of
// every namespace, a Role in each namespace named, and the bindings that
// give them to the program's ServiceAccount. Its objects carry their kind
// (Manifest.Objects, for an installer to apply) and print as YAML
// (Manifest.YAML, for kubectl apply).
//
//	perms, err := mgr.Permissions(ctx)
//	m, err := rbac.Derive(perms, rbac.Options{ServiceAccount: types.NamespacedName{Namespace: "shop", Name: "pricer"}})
//	y, err := m.YAML()
//
// # Record
//
// A [Recorder] wraps a rest.Config (Recorder.Wrap sets its WrapTransport,
// keeping the wrapper it had, so it works on fake.Server.InProcessConfig
// as on testenv's or a real cluster's): every client built from that
// Config afterwards has its requests recorded as kube-apiserver's
// authorizer reads them ([RequestOf]: verb, group, version, resource,
// subresource, namespace, name, or a non-resource path). Run the
// program's tests with it; [Recorder.Requests] lists each distinct
// request once, [Recorder.Forbidden] those the server refused with 403.
// [Observed] turns recorded requests into the permissions that allow
// exactly them.
//
// # Check
//
// [Check] evaluates recorded requests against a Manifest as the RBAC
// authorizer does (bindings and their namespaces, verbs, groups,
// resources and subresources, resourceNames, non-resource URLs,
// wildcards, and what every authenticated user may do). It returns a
// *[DeniedError] listing each request the rules do not allow, and the
// rule parts ([Unused]: one verb on one resource of one rule) that no
// request used. A rule a run had no occasion for (an informer's list,
// used only when the server cannot stream a watch's initial state; a
// Lease create once the Lease exists) shows up there: a test names it
// with its reason.
//
// All functions are pure or safe for concurrent use; the package keeps no
// state but a Recorder's.
package rbac
