package admission_test

import (
	"context"
	"net/http"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/kubego/kubego/webhook/admission"
)

// Whatever the body, the Webhook answers (an HTTP error or a review with
// the request's uid) and never panics; a typed handler never panics on
// the objects either.
func FuzzAdmissionReview(f *testing.F) {
	f.Add(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"group":"example.com","version":"v1","kind":"Widget"},"operation":"CREATE","object":{"spec":{"size":3}}}}`)
	f.Add(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"UPDATE","object":{"spec":{"size":3}},"oldObject":{"spec":{"size":"x"}}}}`)
	f.Add(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"DELETE","oldObject":null}}`)
	f.Add(`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview"}`)
	f.Add(`{"request":[]}`)
	f.Add(`null`)
	handlers := []admission.Handler{
		admission.Validating[Widget](widgetValidator, admission.TypedOptions{}),
		admission.Defaulting[Widget](widgetDefaulter, admission.TypedOptions{}),
	}
	f.Fuzz(func(t *testing.T, body string) {
		rev, err := admission.DecodeReview([]byte(body))
		if (err == nil) != (rev != nil) {
			t.Fatalf("DecodeReview returned review %v and error %v", rev, err)
		}
		for _, h := range handlers {
			code, out, _ := do(t, context.Background(), h, []byte(body))
			if err != nil && code == http.StatusOK {
				t.Fatalf("an unreadable review (%v) was answered 200", err)
			}
			if err == nil && (out == nil || out.Response.UID != rev.Request.UID) {
				t.Fatalf("a readable review got %d %+v", code, out)
			}
			if out != nil && out.Response.Patch != nil && (out.Response.PatchType == nil || *out.Response.PatchType != admissionv1.PatchTypeJSONPatch) {
				t.Fatal("patch without JSONPatch type")
			}
		}
	})
}
