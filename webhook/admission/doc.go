// Package admission serves admission webhooks (admission.k8s.io/v1
// AdmissionReview) over HTTP.
//
// A webhook is a Handler served by a Webhook (an http.Handler, registered on
// a webhook.Server). Most authors write no Handler themselves but one of the
// typed front doors for a Go type T (a struct like Widget; the handler works
// on *T):
//
//   - Validating[T] runs a Validator[*T]: ValidateCreate, ValidateUpdate
//     (with the old object) and ValidateDelete return warnings, which reach
//     the client, and an error, whose message reaches the user unchanged
//     (an *apierrors.StatusError keeps its code and reason; any other error
//     is a 403 Forbidden).
//   - Defaulting[T] runs a Defaulter[*T] on a decoded copy of the object;
//     the Webhook computes the RFC 6902 JSON patch from the difference, so
//     authors never write patches. Only what the defaulter changed is
//     patched: fields the Go type does not know are left alone.
//
// A HandlerFunc answers anything else, from the raw AdmissionRequest.
//
// # Failures
//
// A review that cannot be read (a body over the server's limit, malformed
// JSON, no request, an apiVersion other than admission.k8s.io/v1) is
// answered with an HTTP error status and a metav1.Status body saying why:
// there is no uid to answer to. A readable review always gets an
// AdmissionReview back: a denial with code 400 for a missing or undecodable
// object or a kind the handler does not serve, 500 for a handler that
// panicked (the process survives), 504 for one still running when the
// request's context ended. What kube-apiserver does with an error is the
// webhook configuration's failurePolicy.
//
// Handlers see the AdmissionRequest through RequestFrom(ctx) (user, dry
// run, operation) and must watch ctx: it ends with the server's request
// timeout.
package admission
