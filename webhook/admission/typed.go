package admission

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TypedOptions configure Validating and Defaulting. The zero value serves
// any kind the webhook configuration sends.
type TypedOptions struct {
	// Kind, when set, is the only group and kind served: a request for
	// another (req.Kind) is denied with code 400, wrapping ErrWrongKind.
	Kind schema.GroupKind
}

// checkKind returns a denial for a request of the wrong kind, or nil.
func (o TypedOptions) checkKind(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	if o.Kind.Empty() {
		return nil
	}
	if got := (schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}); got != o.Kind {
		return Errored(http.StatusBadRequest, fmt.Errorf("%w: it serves %s, the request is for %s", ErrWrongKind, o.Kind, got))
	}
	return nil
}

// decodeObject decodes one object of a request into a new T. which names
// it in errors ("object", "oldObject").
func decodeObject[T any, P interface{ *T }](raw runtime.RawExtension, which string) (P, *admissionv1.AdmissionResponse) {
	if len(raw.Raw) == 0 {
		return nil, Errored(http.StatusBadRequest, fmt.Errorf("%w: %s is missing", ErrNoObject, which))
	}
	p := P(new(T))
	if err := json.Unmarshal(raw.Raw, p); err != nil {
		return nil, Errored(http.StatusBadRequest, fmt.Errorf("decoding %s as %T: %w", which, p, err))
	}
	return p, nil
}

// denial turns a handler's error into a response: an *apierrors.StatusError
// keeps its status (code, reason, details), anything else is a 403 with the
// error's message unchanged.
func denial(err error) *admissionv1.AdmissionResponse {
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		st := se.ErrStatus
		if st.Code == 0 {
			st.Code = http.StatusForbidden
		}
		return &admissionv1.AdmissionResponse{Result: &st}
	}
	return Denied(err.Error())
}
