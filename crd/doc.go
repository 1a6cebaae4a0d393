// Package crd installs CustomResourceDefinitions and waits until the API
// server serves them, for programs and tests alike (testenv uses it).
//
// CRDs are read from YAML or JSON (Parse, ReadFiles: files or directories,
// several documents per file, as controller-gen writes them) or converted
// from Go values (FromValue: an *unstructured.Unstructured, a map, or the
// apiextensions-apiserver Go types for those who import them), and handled
// as *unstructured.Unstructured, so this package does not depend on
// k8s.io/apiextensions-apiserver.
//
//	defs, err := crd.ReadFiles("config/crd")
//	...
//	err = crd.Install(ctx, dynamic.New(rc, dynamic.Options{}), defs, crd.InstallOptions{})
//
// Install applies each definition (server-side apply, so running it again
// updates instead of failing) and returns once every one is Established
// and each of its served versions answers a LIST, which is when clients
// and informers of the new resources can start.
package crd
