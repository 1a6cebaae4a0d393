package admission_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/webhook/admission"
)

// Widget is a CRD Go type written by hand.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec,omitempty"`
}

type WidgetSpec struct {
	Size  int    `json:"size,omitempty"`
	Color string `json:"color,omitempty"`
}

var widgetKind = metav1.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}

func widgetJSON(t testing.TB, name string, spec string) runtime.RawExtension {
	t.Helper()
	return runtime.RawExtension{Raw: []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"` + name + `","namespace":"ns"},"spec":` + spec + `}`)}
}

func reviewBody(t testing.TB, req *admissionv1.AdmissionRequest) []byte {
	t.Helper()
	rev := admissionv1.AdmissionReview{Request: req}
	rev.APIVersion, rev.Kind = "admission.k8s.io/v1", "AdmissionReview"
	b, err := json.Marshal(&rev)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// do serves body with h and returns the HTTP status and, for a 200, the
// decoded review.
func do(t testing.TB, ctx context.Context, h admission.Handler, body []byte) (int, *admissionv1.AdmissionReview, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/hook", bytes.NewReader(body))
	admission.New(h, admission.Options{Logger: discard()}).ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return rec.Code, nil, rec.Body.String()
	}
	var rev admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &rev); err != nil {
		t.Fatalf("response is no AdmissionReview: %v: %s", err, rec.Body)
	}
	if rev.APIVersion != "admission.k8s.io/v1" || rev.Kind != "AdmissionReview" || rev.Response == nil {
		t.Fatalf("response review: %s", rec.Body)
	}
	return rec.Code, &rev, rec.Body.String()
}

func request(op admissionv1.Operation, obj, old runtime.RawExtension) *admissionv1.AdmissionRequest {
	return &admissionv1.AdmissionRequest{
		UID: types.UID("uid-1"), Kind: widgetKind, Operation: op,
		Resource: metav1.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"},
		Name:     "w", Namespace: "ns", Object: obj, OldObject: old,
	}
}

func httptestGet(h admission.Handler) int {
	rec := httptest.NewRecorder()
	admission.New(h, admission.Options{Logger: discard()}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/hook", nil))
	return rec.Code
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
