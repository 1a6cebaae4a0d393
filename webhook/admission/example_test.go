package admission_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/kubego/kubego/webhook/admission"
)

// A validating and a defaulting webhook for a hand-written CRD type; the
// Webhooks are http.Handlers for a webhook.Server.
func Example() {
	validate := admission.New(admission.Validating[Widget](admission.ValidatorFuncs[*Widget]{
		Create: func(ctx context.Context, w *Widget) (admission.Warnings, error) {
			if w.Spec.Size > 10 {
				return nil, errors.New("spec.size must be at most 10")
			}
			return nil, nil
		},
	}, admission.TypedOptions{}), admission.Options{})
	setDefaults := admission.New(admission.Defaulting[Widget](admission.DefaulterFunc[*Widget](func(ctx context.Context, w *Widget) error {
		if w.Spec.Color == "" {
			w.Spec.Color = "blue"
		}
		return nil
	}), admission.TypedOptions{}), admission.Options{})

	review := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"CREATE",` +
		`"kind":{"group":"example.com","version":"v1","kind":"Widget"},"object":{"spec":{"size":12}}}}`
	for _, h := range []http.Handler{validate, setDefaults} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(review)))
		fmt.Println(rec.Body.String())
	}
	// Output:
	// {"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"1","allowed":false,"status":{"metadata":{},"status":"Failure","message":"spec.size must be at most 10","reason":"Forbidden","code":403}}}
	// {"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":{"uid":"1","allowed":true,"patch":"W3sib3AiOiJhZGQiLCJwYXRoIjoiL3NwZWMvY29sb3IiLCJ2YWx1ZSI6ImJsdWUifV0=","patchType":"JSONPatch"}}
}
