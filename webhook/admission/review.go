package admission

import (
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The apiVersion and kind of the only review version served.
const (
	reviewAPIVersion = "admission.k8s.io/v1"
	reviewKind       = "AdmissionReview"
)

// DecodeReview parses an AdmissionReview request body. It accepts only
// admission.k8s.io/v1 AdmissionReview with a request (errors wrap
// ErrUnsupportedVersion or ErrNoRequest; malformed JSON is a *json error).
// The objects stay raw JSON (req.Object.Raw), for the handler to decode.
func DecodeReview(body []byte) (*admissionv1.AdmissionReview, error) {
	var rev admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &rev); err != nil {
		return nil, fmt.Errorf("decoding AdmissionReview: %w", err)
	}
	if rev.APIVersion != reviewAPIVersion || rev.Kind != reviewKind {
		return nil, fmt.Errorf("%w: got apiVersion %q kind %q, this webhook speaks %s %s (set admissionReviewVersions to [v1])",
			ErrUnsupportedVersion, rev.APIVersion, rev.Kind, reviewAPIVersion, reviewKind)
	}
	if rev.Request == nil {
		return nil, ErrNoRequest
	}
	return &rev, nil
}

// encodeResponse is the response body for req: the review with only the
// response, its uid set to the request's.
func encodeResponse(uid string, resp *admissionv1.AdmissionResponse) ([]byte, error) {
	out := admissionv1.AdmissionReview{Response: resp}
	out.APIVersion, out.Kind = reviewAPIVersion, reviewKind
	resp.UID = types.UID(uid)
	return json.Marshal(&out)
}
