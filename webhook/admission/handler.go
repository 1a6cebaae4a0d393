package admission

import (
	"context"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/webhook/internal/review"
)

// Handler answers one admission request. The response's UID is set by the
// Webhook; a nil response is a denial with code 500. Handle may be called
// concurrently.
type Handler interface {
	Handle(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	return f(ctx, req)
}

// Allowed returns a response that admits the request, with warnings for
// the client.
func Allowed(warnings ...string) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: true, Warnings: warnings}
}

// Denied returns a response that refuses the request with message, code
// 403 (Forbidden).
func Denied(message string) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Result: &metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: message,
	}}
}

// Errored returns a response that refuses the request because it could not
// be handled, with an HTTP code (400 for a bad request, 500 for a failure of
// the handler) and the error's message.
func Errored(code int32, err error) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Result: &metav1.Status{
		Status: metav1.StatusFailure, Code: code, Reason: review.ReasonFor(code), Message: err.Error(),
	}}
}

type requestKey struct{}

// RequestFrom returns the AdmissionRequest being handled, or nil outside a
// Webhook. The request is shared: read it, never modify it.
func RequestFrom(ctx context.Context) *admissionv1.AdmissionRequest {
	r, _ := ctx.Value(requestKey{}).(*admissionv1.AdmissionRequest)
	return r
}

func withRequest(ctx context.Context, req *admissionv1.AdmissionRequest) context.Context {
	return context.WithValue(ctx, requestKey{}, req)
}
