package client

import (
	"errors"
	"fmt"
	"github.com/kubego/kubego/informer"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// ErrUnknownType is wrapped by *UnknownTypeError.
var ErrUnknownType = errors.New("client: no resource known for Go type")

// UnknownTypeError reports a Go type the client cannot map to a resource:
// not a built-in kind, not registered with Register, not in the client's
// scheme, and (when a Mapper is set) not served by the server. Cause holds
// the mapper's error, if one was asked.
type UnknownTypeError struct {
	Type  reflect.Type
	Cause error
}

func (e *UnknownTypeError) Error() string {
	msg := fmt.Sprintf("client: no resource known for Go type %v (register it with client.Register or give the client a Mapper)", e.Type)
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Unwrap returns ErrUnknownType, informer.ErrPermanent (retrying cannot
// help, so an informer over such a type fails WaitForSync fast) and the
// cause.
func (e *UnknownTypeError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrUnknownType, informer.ErrPermanent}
	}
	return []error{ErrUnknownType, informer.ErrPermanent, e.Cause}
}

// UnknownResourceError reports a resource the client cannot map to a
// kind without the server: neither registered with Register nor a
// built-in kind. It wraps ErrUnknownType.
type UnknownResourceError struct {
	Resource schema.GroupVersionResource
}

func (e *UnknownResourceError) Error() string {
	return fmt.Sprintf("client: no kind known for resource %s (register its Go type with client.Register)", e.Resource)
}

// Unwrap returns ErrUnknownType.
func (e *UnknownResourceError) Unwrap() error { return ErrUnknownType }

// ErrScope is wrapped by *ScopeError.
var ErrScope = errors.New("client: namespace does not fit the resource's scope")

// ScopeError reports a namespace given for a cluster-scoped resource, or a
// namespaced object written without any namespace.
type ScopeError struct {
	Resource   schema.GroupVersionResource
	Namespaced bool
	Namespace  string
}

func (e *ScopeError) Error() string {
	if e.Namespaced {
		return fmt.Sprintf("client: %s is namespaced; set a namespace on the client or the object", e.Resource)
	}
	return fmt.Sprintf("client: %s is cluster-scoped; namespace %q is not allowed", e.Resource, e.Namespace)
}

// Unwrap returns ErrScope.
func (e *ScopeError) Unwrap() error { return ErrScope }

// ErrPatchType is wrapped by *PatchTypeError.
var ErrPatchType = errors.New("client: patch type not supported for this resource")

// PatchTypeError reports a patch type the resource cannot take, such as a
// strategic merge patch for a custom resource (the server has no patch
// strategy metadata for CRD types and would answer 415).
type PatchTypeError struct {
	Resource  schema.GroupVersionResource
	PatchType types.PatchType
}

func (e *PatchTypeError) Error() string {
	return fmt.Sprintf("client: %s patches are only for built-in kinds, not %s; use a JSON merge or JSON patch", e.PatchType, e.Resource)
}

// Unwrap returns ErrPatchType.
func (e *PatchTypeError) Unwrap() error { return ErrPatchType }

// ErrInvalidArgument is wrapped by errors about arguments the client rejects
// before sending anything (an empty name, an apply value without a name …).
var ErrInvalidArgument = errors.New("client: invalid argument")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}
