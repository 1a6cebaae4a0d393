package review

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestReadBodyAnswersWhatCannotBeReviewed(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		name     string
		method   string
		body     string
		limit    int64
		wantOK   bool
		wantCode int
		reason   metav1.StatusReason
	}{
		{"a POST within the limit is read", http.MethodPost, `{"kind":"X"}`, 1 << 10, true, 0, ""},
		{"a GET is refused", http.MethodGet, "", 1 << 10, false, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed},
		{"a body over the limit is refused", http.MethodPost, strings.Repeat("x", 100), 10, false, http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(tc.method, "/validate", strings.NewReader(tc.body))
			req.Body = http.MaxBytesReader(rec, req.Body, tc.limit)
			body, ok := ReadBody(rec, req, log, "AdmissionReview")
			if ok != tc.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tc.wantOK)
			}
			if ok {
				if string(body) != tc.body {
					t.Errorf("body %q", body)
				}
				return
			}
			var st metav1.Status
			if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
				t.Fatalf("answer is not a Status: %v: %s", err, rec.Body)
			}
			if rec.Code != tc.wantCode || int(st.Code) != tc.wantCode || st.Reason != tc.reason || !strings.Contains(st.Message, "AdmissionReview") {
				t.Errorf("HTTP %d, Status %+v; want %d, reason %s, a message naming the review", rec.Code, st, tc.wantCode, tc.reason)
			}
		})
	}
}
