// Package typeschema derives the structural OpenAPI v3 schema of a Go
// type by reflection: the schema types (Schema, Validation), the build
// from json tags, kube tags, Declarer methods, declarations by path and
// the models kube-apiserver publishes for k8s.io types, and the errors of
// a build (*DeclarationError, *TypeError).
//
// It checks no CEL itself: Type takes the check of declared rules as a
// parameter (Rules). Package apischema is its public face: it aliases
// these types and builds with rules compiled and costed as kube-apiserver
// does, which links the CEL compiler; package apply builds with none, as
// it needs only the structure (names, list types and keys, map types), so
// that a program using the client links no CEL.
package typeschema
