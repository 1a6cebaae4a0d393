// Package review holds what the admission and conversion webhooks do alike
// before and after their own work: read a review's body from a POST, and
// answer a request that cannot be reviewed with a metav1.Status.
package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReadBody reads the body of a review request. When it cannot (not a POST,
// over the server's body limit, a read error), it answers the request
// itself, logs what a user must know at warn level, and returns ok ==
// false. kind names the review in messages ("AdmissionReview").
func ReadBody(w http.ResponseWriter, r *http.Request, log *slog.Logger, kind string) (body []byte, ok bool) {
	if r.Method != http.MethodPost {
		WriteStatus(w, http.StatusMethodNotAllowed, kind+" requests take POST")
		return nil, false
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			log.Warn("webhook: review body over the limit", "review", kind, "path", r.URL.Path, "limit", tooLarge.Limit)
			WriteStatus(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("%s body exceeds the webhook server's limit of %d bytes", kind, tooLarge.Limit))
			return nil, false
		}
		WriteStatus(w, http.StatusBadRequest, "reading "+kind+": "+err.Error())
		return nil, false
	}
	return body, true
}

// WriteStatus answers with an HTTP error and a metav1.Status body, for a
// request that has no review (and so no uid) to answer in.
func WriteStatus(w http.ResponseWriter, code int, message string) {
	st := metav1.Status{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
		Status:   metav1.StatusFailure, Code: int32(code), Reason: ReasonFor(int32(code)), Message: message,
	}
	data, _ := json.Marshal(&st)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(data)
}

// ReasonFor is the Status reason of an HTTP error code a webhook answers
// with.
func ReasonFor(code int32) metav1.StatusReason {
	switch code {
	case http.StatusBadRequest:
		return metav1.StatusReasonBadRequest
	case http.StatusForbidden:
		return metav1.StatusReasonForbidden
	case http.StatusMethodNotAllowed:
		return metav1.StatusReasonMethodNotAllowed
	case http.StatusGatewayTimeout:
		return metav1.StatusReasonTimeout
	case http.StatusRequestEntityTooLarge:
		return metav1.StatusReasonRequestEntityTooLarge
	default:
		return metav1.StatusReasonInternalError
	}
}
