// Package openapi reads kube-apiserver's OpenAPI v3 documents, for
// kubectl-explain-style lookups: the schema of a kind
// (Client.Schema), and the type, description and fields of any field of
// it (Client.Explain), built-in kinds and custom resources alike.
//
//	c := openapi.New(rc, openapi.Options{})
//	f, err := c.Explain(ctx, appsv1.SchemeGroupVersion.WithKind("Deployment"), "spec.template.spec.containers")
//	// f.Type is "[]Container"; f.Fields lists image, ports, ...
//
// Documents are kept by the hash the server's index gives them, so one is
// fetched again only after it changed (a CRD installed or updated).
//
// OpenAPI v2 (/openapi/v2), which kube-apiserver still serves, is not
// read: every supported kube-apiserver serves v3, which describes the same
// kinds with more fidelity (nullable, defaults, oneOf). Checking an object
// before it is sent is better left to the server: a write with
// DryRun: []string{"All"} and fieldValidation=Strict validates exactly as
// the real write would, admission webhooks included.
package openapi
