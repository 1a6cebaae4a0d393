// Package layering holds the test that keeps kubego's dependency direction
// (ARCHITECTURE.md): a package imports only packages of a lower layer, and no
// library package depends on k8s.io/client-go or controller-runtime.
package layering
