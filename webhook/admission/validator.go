package admission

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
)

// Warnings are messages for the client that do not refuse the request
// (kubectl prints them; the rest client hands them to its WarningHandler).
type Warnings []string

// Validator checks objects of one type P (a pointer, like *Widget). Each
// method admits with a nil error; a non-nil error refuses, its message
// reaching the user unchanged. Warnings are sent either way. The objects
// are the handler's own decoded copies; the methods may be called
// concurrently.
type Validator[P any] interface {
	ValidateCreate(ctx context.Context, obj P) (Warnings, error)
	ValidateUpdate(ctx context.Context, oldObj, newObj P) (Warnings, error)
	ValidateDelete(ctx context.Context, obj P) (Warnings, error)
}

// ValidatorFuncs adapts functions to Validator; a nil function admits.
type ValidatorFuncs[P any] struct {
	Create func(ctx context.Context, obj P) (Warnings, error)
	Update func(ctx context.Context, oldObj, newObj P) (Warnings, error)
	Delete func(ctx context.Context, obj P) (Warnings, error)
}

// ValidateCreate calls Create, if set.
func (f ValidatorFuncs[P]) ValidateCreate(ctx context.Context, obj P) (Warnings, error) {
	if f.Create == nil {
		return nil, nil
	}
	return f.Create(ctx, obj)
}

// ValidateUpdate calls Update, if set.
func (f ValidatorFuncs[P]) ValidateUpdate(ctx context.Context, oldObj, newObj P) (Warnings, error) {
	if f.Update == nil {
		return nil, nil
	}
	return f.Update(ctx, oldObj, newObj)
}

// ValidateDelete calls Delete, if set.
func (f ValidatorFuncs[P]) ValidateDelete(ctx context.Context, obj P) (Warnings, error) {
	if f.Delete == nil {
		return nil, nil
	}
	return f.Delete(ctx, obj)
}

// Validating returns a Handler that decodes the request's objects into T
// (as JSON) and calls v by operation: CREATE with the object, UPDATE with
// the old object and the object, DELETE with the old object (kube-apiserver
// sends the object being deleted there). CONNECT and other operations are
// admitted without a call. A missing or undecodable object, or a kind
// other than opts.Kind, is denied with code 400.
func Validating[T any, P interface{ *T }](v Validator[P], opts TypedOptions) Handler {
	return HandlerFunc(func(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		if deny := opts.checkKind(req); deny != nil {
			return deny
		}
		var (
			warnings Warnings
			err      error
		)
		switch req.Operation {
		case admissionv1.Create:
			obj, deny := decodeObject[T, P](req.Object, "object")
			if deny != nil {
				return deny
			}
			warnings, err = v.ValidateCreate(ctx, obj)
		case admissionv1.Update:
			obj, deny := decodeObject[T, P](req.Object, "object")
			if deny != nil {
				return deny
			}
			old, deny := decodeObject[T, P](req.OldObject, "oldObject")
			if deny != nil {
				return deny
			}
			warnings, err = v.ValidateUpdate(ctx, old, obj)
		case admissionv1.Delete:
			old, deny := decodeObject[T, P](req.OldObject, "oldObject")
			if deny != nil {
				return deny
			}
			warnings, err = v.ValidateDelete(ctx, old)
		case admissionv1.Connect:
			return Allowed()
		default:
			return Errored(http.StatusBadRequest, fmt.Errorf("unknown admission operation %q", req.Operation))
		}
		if err != nil {
			resp := denial(err)
			resp.Warnings = warnings
			return resp
		}
		return Allowed(warnings...)
	})
}
