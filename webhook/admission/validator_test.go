package admission_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/webhook/admission"
)

// widgetValidator refuses sizes over 10, shrinking, and deleting a widget
// labelled protected; it warns about red ones.
var widgetValidator = admission.ValidatorFuncs[*Widget]{
	Create: func(ctx context.Context, w *Widget) (admission.Warnings, error) {
		var warn admission.Warnings
		if w.Spec.Color == "red" {
			warn = append(warn, "red widgets fade")
		}
		if w.Spec.Size > 10 {
			return warn, fmt.Errorf("spec.size must be at most 10, got %d", w.Spec.Size)
		}
		return warn, nil
	},
	Update: func(ctx context.Context, old, w *Widget) (admission.Warnings, error) {
		if w.Spec.Size < old.Spec.Size {
			return nil, fmt.Errorf("spec.size may not shrink (from %d to %d)", old.Spec.Size, w.Spec.Size)
		}
		return nil, nil
	},
	Delete: func(ctx context.Context, w *Widget) (admission.Warnings, error) {
		if w.Labels["protected"] == "true" {
			return nil, apierrors.NewConflict(schema.GroupResource{Group: "example.com", Resource: "widgets"}, w.Name, errors.New("widget is protected"))
		}
		return nil, nil
	},
}

func TestValidating(t *testing.T) {
	h := admission.Validating[Widget](widgetValidator, admission.TypedOptions{Kind: schema.GroupKind{Group: "example.com", Kind: "Widget"}})
	none := runtime.RawExtension{}
	for _, tc := range []struct {
		name     string
		req      *admissionv1.AdmissionRequest
		allowed  bool
		code     int32
		message  string
		warnings []string
	}{
		{"a valid create is admitted", request(admissionv1.Create, widgetJSON(t, "w", `{"size":3}`), none), true, 0, "", nil},
		{"an invalid create is refused with the validator's message", request(admissionv1.Create, widgetJSON(t, "w", `{"size":11}`), none),
			false, http.StatusForbidden, "spec.size must be at most 10, got 11", nil},
		{"warnings are sent with an admission", request(admissionv1.Create, widgetJSON(t, "w", `{"color":"red"}`), none),
			true, 0, "", []string{"red widgets fade"}},
		{"warnings are sent with a denial", request(admissionv1.Create, widgetJSON(t, "w", `{"color":"red","size":12}`), none),
			false, http.StatusForbidden, "spec.size must be at most 10, got 12", []string{"red widgets fade"}},
		{"an update sees the old object", request(admissionv1.Update, widgetJSON(t, "w", `{"size":3}`), widgetJSON(t, "w", `{"size":5}`)),
			false, http.StatusForbidden, "spec.size may not shrink (from 5 to 3)", nil},
		{"a delete is validated on the old object", request(admissionv1.Delete, none, runtime.RawExtension{Raw: []byte(`{"metadata":{"name":"w","labels":{"protected":"true"}}}`)}),
			false, http.StatusConflict, `Operation cannot be fulfilled on widgets.example.com "w": widget is protected`, nil},
		{"an unprotected delete is admitted", request(admissionv1.Delete, none, widgetJSON(t, "w", `{}`)), true, 0, "", nil},
		{"connect is admitted", request(admissionv1.Connect, none, none), true, 0, "", nil},
		{"a create without object is refused", request(admissionv1.Create, none, none), false, http.StatusBadRequest, "object is missing", nil},
		{"an update without old object is refused", request(admissionv1.Update, widgetJSON(t, "w", `{}`), none), false, http.StatusBadRequest, "oldObject is missing", nil},
		{"an undecodable object is refused", request(admissionv1.Create, widgetJSON(t, "w", `{"size":"big"}`), none), false, http.StatusBadRequest, "decoding object as *admission_test.Widget", nil},
		{"another kind is refused", func() *admissionv1.AdmissionRequest {
			r := request(admissionv1.Create, widgetJSON(t, "w", `{}`), none)
			r.Kind.Kind = "Gadget"
			return r
		}(), false, http.StatusBadRequest, "it serves Widget.example.com, the request is for Gadget.example.com", nil},
		{"an unknown operation is refused", request("FROB", none, none), false, http.StatusBadRequest, `unknown admission operation "FROB"`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rev, body := do(t, t.Context(), h, reviewBody(t, tc.req))
			resp := rev.Response
			if resp.UID != tc.req.UID {
				t.Errorf("uid %q, want %q", resp.UID, tc.req.UID)
			}
			if resp.Allowed != tc.allowed {
				t.Fatalf("allowed = %v, want %v: %s", resp.Allowed, tc.allowed, body)
			}
			if !tc.allowed && (resp.Result == nil || resp.Result.Code != tc.code || !strings.Contains(resp.Result.Message, tc.message)) {
				t.Fatalf("result %+v, want code %d and message containing %q", resp.Result, tc.code, tc.message)
			}
			if !tc.allowed && tc.code == http.StatusForbidden && resp.Result.Message != tc.message {
				t.Fatalf("message %q, want the validator's %q unchanged", resp.Result.Message, tc.message)
			}
			if !slices.Equal(resp.Warnings, tc.warnings) {
				t.Errorf("warnings %q, want %q", resp.Warnings, tc.warnings)
			}
			if resp.Patch != nil {
				t.Errorf("a validating response carries a patch: %s", resp.Patch)
			}
		})
	}
}

func TestUnreadableReviewsGetAnHTTPErrorSayingWhy(t *testing.T) {
	h := admission.HandlerFunc(func(context.Context, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		t.Error("handler called")
		return admission.Allowed()
	})
	for _, tc := range []struct {
		name, body string
		code       int
		contains   string
	}{
		{"malformed JSON", `{"apiVersion":`, 400, "decoding AdmissionReview"},
		{"not JSON at all", `<html>`, 400, "decoding AdmissionReview"},
		{"v1beta1", `{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"u"}}`, 400, "unsupported AdmissionReview version"},
		{"another kind", `{"apiVersion":"admission.k8s.io/v1","kind":"Frob","request":{"uid":"u"}}`, 400, "unsupported AdmissionReview version"},
		{"no request", `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, 400, "has no request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := do(t, t.Context(), h, []byte(tc.body))
			if code != tc.code || !strings.Contains(body, tc.contains) || !strings.Contains(body, `"kind":"Status"`) {
				t.Fatalf("got %d %s, want %d with a Status containing %q", code, body, tc.code, tc.contains)
			}
		})
	}
}

func TestHandlerFailuresAreDenials(t *testing.T) {
	obj := widgetJSON(t, "w", `{}`)
	t.Run("a panic is a 500 with its value, and the server survives", func(t *testing.T) {
		h := admission.HandlerFunc(func(context.Context, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse { panic("nil map") })
		_, rev, _ := do(t, t.Context(), h, reviewBody(t, request(admissionv1.Create, obj, runtime.RawExtension{})))
		if r := rev.Response; r.Allowed || r.Result.Code != 500 || !strings.Contains(r.Result.Message, "panicked: nil map") || r.UID != "uid-1" {
			t.Fatalf("response %+v", r)
		}
	})
	t.Run("a nil response is a 500", func(t *testing.T) {
		h := admission.HandlerFunc(func(context.Context, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse { return nil })
		_, rev, _ := do(t, t.Context(), h, reviewBody(t, request(admissionv1.Create, obj, runtime.RawExtension{})))
		if r := rev.Response; r.Allowed || r.Result.Code != 500 {
			t.Fatalf("response %+v", r)
		}
	})
	t.Run("a handler still running when the context ends is a 504", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			release := make(chan struct{})
			h := admission.HandlerFunc(func(context.Context, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
				<-release // ignores its context
				return admission.Allowed()
			})
			_, rev, _ := do(t, ctx, h, reviewBody(t, request(admissionv1.Create, obj, runtime.RawExtension{})))
			if r := rev.Response; r.Allowed || r.Result.Code != 504 || !strings.Contains(r.Result.Message, "did not answer in time") {
				t.Fatalf("response %+v", r)
			}
			close(release)
		})
	})
	t.Run("the handler sees the request in its context", func(t *testing.T) {
		h := admission.HandlerFunc(func(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			if admission.RequestFrom(ctx) != req {
				return admission.Denied("RequestFrom differs")
			}
			return admission.Allowed()
		})
		_, rev, _ := do(t, t.Context(), h, reviewBody(t, request(admissionv1.Create, obj, runtime.RawExtension{})))
		if !rev.Response.Allowed {
			t.Fatalf("response %+v", rev.Response)
		}
	})
}

func TestOnlyPostIsServed(t *testing.T) {
	h := admission.HandlerFunc(func(context.Context, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return admission.Allowed()
	})
	rec := httptestGet(h)
	if rec != http.StatusMethodNotAllowed {
		t.Fatalf("GET answered %d, want 405", rec)
	}
}
