// Package client is the typed client of kubego: one generic Resource[T]
// that works for every built-in kind and for any custom resource Go type,
// with no code generation.
//
// # Getting a client
//
// Build a rest.Client, wrap it in a Client, and ask Typed for the client of a
// type:
//
//	rc, err := rest.NewClient(cfg)
//	c := client.New(rc, client.Options{})
//	pods := client.Typed[*corev1.Pod](c).Namespace("default")
//	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
//
// client.NewForConfig(cfg, opts) does both steps in one call.
//
// The same clients are reachable in the familiar clientset shape through
// package clientset (cs.CoreV1().Pods("default")), which is generated and
// returns exactly these values.
//
// # How a type finds its resource
//
// For built-in kinds the resource name and scope come from a table
// generated (internal/gen/clientsetgen) from the registration markers of
// k8s.io/api, checked against scheme.Default() by a unit test and against a
// real server's discovery by an integration test. Custom resource types are
// registered once:
//
//	reg := client.NewRegistry()
//	client.Register[*Widget](reg, schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, true)
//	c := client.New(rc, client.Options{Registry: reg})
//
// Built-in kinds are recognised by their Go types (the rest client needs
// no scheme for them, so a program links only the API groups it uses); a
// list of one whose list type the scheme does not register is read item by
// item, in protobuf.
//
// A type that is in the rest client's scheme only is found through
// discovery by setting Options.Mapper to a *discovery.RESTMapper. A type
// that cannot be mapped is not a panic: each call returns
// *UnknownTypeError.
//
// # Custom resource Go types
//
// A CRD Go type is a plain struct embedding metav1.TypeMeta (json:",inline")
// and metav1.ObjectMeta (json:"metadata"). runtime.Object also wants
// DeepCopyObject; Go generics cannot add methods to a type and an embedded
// helper cannot know the type it is embedded in, so the one line to write
// is
//
//	func (w *Widget) DeepCopyObject() runtime.Object { return client.DeepCopy(w) }
//
// DeepCopy copies by reflection (using the generated DeepCopyInto of
// k8s.io types such as ObjectMeta and Quantity). Types the rest client's
// scheme does not know travel as JSON; built-in kinds use protobuf.
//
// # Verbs
//
// Resource[T] has Get, List, Watch, Create, Update, UpdateStatus, Patch,
// Apply, ApplyStatus, Delete and DeleteCollection, generic subresource
// access (GetSubresource, CreateSubresource, UpdateSubresource), the scale
// subresource (GetScale, UpdateScale), and for pods the functions Evict and
// Logs. Objects passed in are never modified; objects returned belong to
// the caller. Errors from the server are *apierrors.StatusError, so
// apierrors.IsNotFound, IsConflict and friends work on them.
//
// Patch takes JSON patches and JSON merge patches for every resource, and
// strategic merge patches for built-in kinds only; for a custom resource
// it returns *PatchTypeError before sending anything, because the server
// has no merge strategy for CRD types.
//
// # Field manager
//
// Options.FieldManager names the writer of every Create, Update,
// UpdateStatus, Patch, Apply and subresource write whose options name
// none, so managedFields show one name for everything a program writes.
// Without it, writes name none and the server takes the User-Agent up to
// its first "/": with rest's default User-Agent
// ("<program>/<version> (<os>/<arch>) kubego/<version>") that is the
// program's name, and Apply, which must name a manager, sends that name.
//
// # Server-side apply, and its zero-value pitfall
//
// Apply sends the desired state of the fields one field manager owns. The
// safe inputs are a map[string]any or an *unstructured.Unstructured holding
// only those fields:
//
//	_, err := deployments.Apply(ctx, map[string]any{
//		"metadata": map[string]any{"name": "web"},
//		"spec":     map[string]any{"replicas": 3},
//	}, client.ApplyOptions{FieldManager: "scaler"})
//
// A full typed object (a *appsv1.Deployment) is accepted too, but it is
// the classic trap: Go cannot tell unset fields from zero ones, so every
// field without omitempty is sent with its zero value and this manager
// takes ownership of it, resetting what others set. Apply strips nulls and
// empty objects from encoded structs (ApplyMap shows what is sent), which
// removes the common offenders ("creationTimestamp": null, "status": {},
// "resources": {}), but plain zero scalars still go out, and zero values
// with omitempty can never be owned.
//
// To apply from the Go type itself, give ApplyFunc a function that sets
// the fields to own (package apply): exactly those are sent, zero values
// included, for built-in kinds and custom resources alike:
//
//	_, err := deployments.ApplyFunc(ctx, func(d *appsv1.Deployment) {
//		d.Name = "web"
//		d.Spec.Replicas = ptr.To[int32](0)
//		d.Spec.Paused = false
//	}, client.ApplyOptions{FieldManager: "scaler"})
//
// Extract reads back the part of an object a manager owns, as an
// *apply.Configuration[T] (its Value is a T); Apply sends a Configuration
// as it is. Re-applying an unchanged configuration writes nothing.
//
// # Pages and conflicts
//
// All walks every page of a list as an iter.Seq2, following continue
// tokens. When a token expires (410 Gone) it restarts and skips what it
// already yielded, or, with AllOptions.Snapshot, ends with *ExpiredError.
// RetryOnConflict re-runs a read-modify-write function while the server
// answers 409 Conflict, with backoff, until ctx ends.
//
// # Informers
//
// Resource.ListerWatcher adapts a client to informer.ListerWatcher, and a
// *Client is an informer.Backend, so an informer factory can be built on it
// for typed, unstructured and metadata targets.
package client
