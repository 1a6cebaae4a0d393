package conversion

import (
	"encoding/json"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Review is a ConversionReview of apiextensions.k8s.io/v1 (and v1beta1,
// whose wire form is the same), as kube-apiserver sends and expects it.
type Review struct {
	metav1.TypeMeta `json:",inline"`
	Request         *Request  `json:"request,omitempty"`
	Response        *Response `json:"response,omitempty"`
}

// Request asks to convert Objects to DesiredAPIVersion.
type Request struct {
	UID               types.UID         `json:"uid"`
	DesiredAPIVersion string            `json:"desiredAPIVersion"`
	Objects           []json.RawMessage `json:"objects"`
}

// Response carries the converted objects, in the order of the request's,
// and the outcome. Result.Status is metav1.StatusSuccess or
// metav1.StatusFailure (with a message, and no objects).
type Response struct {
	UID              types.UID         `json:"uid"`
	ConvertedObjects []json.RawMessage `json:"convertedObjects"`
	Result           metav1.Status     `json:"result"`
}

// The review versions served.
const (
	reviewGroup = "apiextensions.k8s.io"
	reviewKind  = "ConversionReview"
)

var (
	// ErrUnsupportedVersion is wrapped by the error of a review of another
	// apiVersion or kind.
	ErrUnsupportedVersion = errors.New("unsupported ConversionReview version")
	// ErrNoRequest is wrapped by the error of a review without a request
	// or without a desired apiVersion.
	ErrNoRequest = errors.New("ConversionReview has no request")
	// ErrNoConversion is wrapped by the failure of an object no registered
	// function converts to the desired apiVersion.
	ErrNoConversion = errors.New("no conversion function")
)

// DecodeReview parses a ConversionReview request body: apiextensions.k8s.io
// v1 or v1beta1, with a request naming the desired apiVersion. Objects stay
// raw JSON.
func DecodeReview(body []byte) (*Review, error) {
	var rev Review
	if err := json.Unmarshal(body, &rev); err != nil {
		return nil, fmt.Errorf("decoding ConversionReview: %w", err)
	}
	if (rev.APIVersion != reviewGroup+"/v1" && rev.APIVersion != reviewGroup+"/v1beta1") || rev.Kind != reviewKind {
		return nil, fmt.Errorf("%w: got apiVersion %q kind %q, this webhook speaks %s/v1 %s",
			ErrUnsupportedVersion, rev.APIVersion, rev.Kind, reviewGroup, reviewKind)
	}
	if rev.Request == nil {
		return nil, ErrNoRequest
	}
	if rev.Request.DesiredAPIVersion == "" {
		return nil, fmt.Errorf("%w: desiredAPIVersion is empty", ErrNoRequest)
	}
	return &rev, nil
}
