// Package proxy sends HTTP requests to Pods and Services through
// kube-apiserver's proxy subresource
// (/api/v1/namespaces/{ns}/pods/{name}[:port]/proxy/{path}), on a
// *rest.Client: the same credentials, TLS and proxy settings as every
// other request, and no network path to the Pod needed.
//
// Bodies stream both ways: a request body is an io.Reader sent as it is
// read, and the answer is returned unread for the caller to consume and
// close. An answer that is not 2xx is an *apierrors.StatusError: either
// the API server's own refusal (403, 404 for no such Pod, 503 for a Service
// without endpoints) or the backend's answer, whose text it carries.
package proxy
