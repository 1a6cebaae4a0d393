// Package apply builds server-side apply configurations from Go-typed
// objects, with no generated code, and reads back the part of a live
// object a field manager owns (Extract).
//
// # The problem
//
// A server-side apply sends the fields a manager means to own, and the
// manager owns exactly those. A Go struct cannot say which fields it
// means: encoding/json writes every field without omitempty ("paused":
// false, "creationTimestamp": null, "strategy": {}) and drops every zero
// field with it (a "replicas": 0 behind a non-pointer, an empty string set
// on purpose). client-go answers with generated apply configurations (a
// builder type per API type, every field a pointer); this package answers
// with the Go types themselves.
//
// # Set functions
//
// The author writes a function that sets the fields it owns, on the type
// itself:
//
//	ty, err := apply.TypeOf[*appsv1.Deployment]()
//	cfg, err := ty.Configure(func(d *appsv1.Deployment) {
//		d.Name = "web"
//		d.Spec.Replicas = ptr.To[int32](0)
//		d.Spec.Paused = false
//		d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "app", Image: "app:1"}}
//	})
//
// Configure runs it twice, each time on an object whose every reachable
// field already holds a placeholder, different in the two runs: pointers
// allocated, maps made, scalars, quantities, times and int-or-strings set.
// A field holds equal values after both runs exactly when the function
// wrote it, so the configuration is those fields, zero values included,
// and nothing else. Values put in place whole (a list, a pointer or struct
// literal, a new map entry) are owned as encoding/json with omitempty
// would write them, plus the fields the server needs even when zero: the
// key fields of list-map elements and the fields the schema requires. Lists start nil: assign or append
// to them, do not index them. The function must only write; a value that
// depends on the placeholders it was given (a counter incremented, a name
// suffixed) is a *SetError naming the field. The schema that says how the
// server merges the type — list-map keys, atomic maps — is the one
// kube-apiserver publishes for built-in kinds and the one package apischema
// derives for a custom resource.
//
// Set functions were chosen over the alternatives:
//
//   - an explicit list of field paths given with the object ("spec.replicas",
//     "spec.template.spec.containers[name=app].image") says everything,
//     but in strings the compiler does not check, written twice (once as a
//     value, once as a path) and easy to let drift from the object;
//   - apply-shaped types (every field a pointer) are what generated code
//     provides; by hand they are a second copy of every API type;
//   - omitempty on the full type (what encoding/json gives) cannot own a
//     zero value and owns every zero field without omitempty.
//
// A set function is plain typed Go, is checked by the compiler, and is the
// code a controller would write anyway to build its desired object. Its
// costs: it runs twice on larger objects than it returns, and a zero
// scalar inside a value it assigns whole is not owned (set it through a
// pointer field, or as a field of the object given, where it is owned).
// Two corners follow from comparing results: a struct whose every field
// the function sets one by one reads as a struct assigned whole, and a
// pointer to a struct of only lists, assigned empty, reads as untouched.
//
// # Extract and re-applies
//
// Type.Extract reads a live object's managedFields entry of a manager (its
// fieldsV1, operation Apply) and returns the owned part of the object as a
// Configuration: Value gives it as a T, ApplyObject as the body of an
// apply. Configuration.Equal compares two configurations as the server
// merges them, so a controller can tell whether its desired state is
// already in place. Re-applying an unchanged configuration costs the
// request but no write: kube-apiserver and package fake both leave the
// object, and its resourceVersion, as they are.
//
// package client applies configurations (Resource.Apply takes a
// *Configuration, Resource.ApplyFunc takes the set function) and keeps one
// Type per Go type (client.ApplyType).
package apply
