package fake

import (
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ErrNotDefaulted is wrapped by the error a write of a built-in kind
// returns under Options.RefuseUndefaulted when kube-apiserver defaults
// that kind and the fake does not.
var ErrNotDefaulted = errors.New("fake: kind not defaulted")

// notDefaulted is the error of a write refused under
// Options.RefuseUndefaulted: 501 Not Implemented, naming the kind and the
// option, wrapping ErrNotDefaulted for in-process callers (Add).
func notDefaulted(gvk schema.GroupVersionKind) error {
	msg := fmt.Sprintf("the fake server does not default %s %s as kube-apiserver does; it refuses the write because Options.RefuseUndefaulted is set", gvk.GroupVersion(), gvk.Kind)
	return &notDefaultedError{StatusError: apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotImplemented,
		Reason:  metav1.StatusReason("NotImplemented"),
		Message: msg,
		Details: &metav1.StatusDetails{Group: gvk.Group, Kind: gvk.Kind},
	}}}
}

// notDefaultedError is a StatusError (what the client is answered) that
// is also ErrNotDefaulted.
type notDefaultedError struct{ apierrors.StatusError }

func (e *notDefaultedError) Unwrap() error { return ErrNotDefaulted }
