package admission

import "errors"

var (
	// ErrUnsupportedVersion is wrapped by the error of a review whose
	// apiVersion or kind is not admission.k8s.io/v1 AdmissionReview.
	ErrUnsupportedVersion = errors.New("unsupported AdmissionReview version")
	// ErrNoRequest is wrapped by the error of a review without a request.
	ErrNoRequest = errors.New("AdmissionReview has no request")
	// ErrNoObject is wrapped by the denial of a request that lacks the
	// object its operation needs (the object for CREATE and UPDATE, the
	// old object for UPDATE and DELETE).
	ErrNoObject = errors.New("admission request has no object")
	// ErrWrongKind is wrapped by the denial of a request for a kind the
	// typed handler does not serve.
	ErrWrongKind = errors.New("admission request for a kind this webhook does not serve")
)
