// Package conversion serves CRD conversion webhooks
// (apiextensions.k8s.io/v1 ConversionReview) over HTTP.
//
// The author writes conversion functions between the Go types of two
// versions of one kind and registers them on a Webhook, which is an
// http.Handler for a webhook.Server:
//
//	wh := conversion.New(conversion.Options{Hub: "example.com/v2"})
//	conversion.Register(wh, "example.com/v1", "example.com/v2", v1ToV2) // func(ctx, *v1.Widget, *v2.Widget) error
//	conversion.Register(wh, "example.com/v2", "example.com/v1", v2ToV1)
//	srv.Handle("/convert", wh)
//
// For each object of a review the Webhook picks the function from the
// object's apiVersion to the desired one; with Options.Hub set and no direct
// function, it converts to the hub and from there. It sets apiVersion and
// kind of the result (the kind stays the object's); the function copies
// everything else, metadata included (kube-apiserver refuses a result whose
// name, namespace or uid changed). An object already at the desired
// apiVersion is returned as sent. The response keeps the review's uid and
// apiVersion.
//
// # Failures
//
// When any object fails to convert (no function, undecodable, the
// function's error, a panic, the request's context ending), the response is
// a failed ConversionReview result (status Failure, code 500 or 504) whose
// message names the object, and no object is converted: kube-apiserver
// then fails the client's request with that message. A review that cannot
// be read (over the server's body limit, malformed, without a request, or
// of an apiVersion other than apiextensions.k8s.io/v1 and v1beta1, whose
// wire form is the same) is answered with an HTTP error status and a
// metav1.Status body.
//
// The wire types are defined here (Review, Request, Response): the module
// does not depend on k8s.io/apiextensions-apiserver.
package conversion
