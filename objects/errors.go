package objects

import (
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var (
	// ErrAlreadyOwned is wrapped by *AlreadyOwnedError.
	ErrAlreadyOwned = errors.New("object already has another controller")
	// ErrInvalidOwner is wrapped by the errors of SetControllerReference
	// and SetOwnerReference for an owner that cannot own the object: no
	// name or UID, or a namespace that does not allow the reference (a
	// namespaced owner of a cluster-scoped object or of an object in
	// another namespace, which the garbage collector would treat as
	// absent and delete the object).
	ErrInvalidOwner = errors.New("invalid owner")
	// ErrKeyChanged is returned by CreateOrUpdate and CreateOrPatch when
	// the mutate function changes the object's name or namespace, and by
	// Patch and PatchStatus for an old and a new object that are not the
	// same object.
	ErrKeyChanged = errors.New("object name or namespace changed")
)

// AlreadyOwnedError is returned by SetControllerReference when the object
// already has a controller owner reference to another owner: an object has
// at most one controller, and taking it over must be a decision of the
// caller (remove the reference first).
type AlreadyOwnedError struct {
	// Namespace and Name name the object.
	Namespace, Name string
	// Owner is the controller reference the object already has.
	Owner metav1.OwnerReference
}

func (e *AlreadyOwnedError) Error() string {
	obj := e.Name
	if e.Namespace != "" {
		obj = e.Namespace + "/" + obj
	}
	return fmt.Sprintf("objects: %s is already controlled by %s %s", obj, e.Owner.Kind, e.Owner.Name)
}

// Unwrap returns ErrAlreadyOwned.
func (e *AlreadyOwnedError) Unwrap() error { return ErrAlreadyOwned }
