package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
)

// Defaulter sets defaults on an object of type P (a pointer, like
// *Widget) by changing it in place. obj is the handler's own decoded copy:
// the Webhook patches the stored object with what changed. A non-nil error
// refuses the request, like a Validator's. Default may be called
// concurrently.
type Defaulter[P any] interface {
	Default(ctx context.Context, obj P) error
}

// DefaulterFunc adapts a function to Defaulter.
type DefaulterFunc[P any] func(ctx context.Context, obj P) error

// Default calls f.
func (f DefaulterFunc[P]) Default(ctx context.Context, obj P) error { return f(ctx, obj) }

// Defaulting returns a Handler for a mutating webhook: on CREATE and
// UPDATE it decodes the object into T (as JSON), calls d on it, and
// admits with the RFC 6902 JSON patch from the object as sent to the
// object as d left it (no patch when nothing changed). Only fields d
// changed are patched: one the Go type does not know, or encodes
// differently on its own, is kept as sent. Other operations are admitted
// unchanged. A missing or undecodable object, or a kind other than
// opts.Kind, is denied with code 400.
func Defaulting[T any, P interface{ *T }](d Defaulter[P], opts TypedOptions) Handler {
	return HandlerFunc(func(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		if deny := opts.checkKind(req); deny != nil {
			return deny
		}
		if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
			return Allowed()
		}
		obj, deny := decodeObject[T, P](req.Object, "object")
		if deny != nil {
			return deny
		}
		before, err := json.Marshal(obj)
		if err != nil {
			return Errored(http.StatusInternalServerError, fmt.Errorf("encoding %T: %w", obj, err))
		}
		if err := d.Default(ctx, obj); err != nil {
			return denial(err)
		}
		after, err := json.Marshal(obj)
		if err != nil {
			return Errored(http.StatusInternalServerError, fmt.Errorf("encoding defaulted %T: %w", obj, err))
		}
		return PatchResponse(req.Object.Raw, before, after)
	})
}

// PatchResponse admits with the JSON patch that applies to raw (the
// object as sent) the changes from before to after (the object as
// decoded and re-encoded, before and after a mutation), as Defaulting
// does. A raw handler that mutates a decoded copy can use it too; with
// before equal to raw, every difference to after is patched.
func PatchResponse(raw, before, after []byte) *admissionv1.AdmissionResponse {
	ops, err := defaultingPatch(raw, before, after)
	if err != nil {
		return Errored(http.StatusInternalServerError, err)
	}
	resp := Allowed()
	if len(ops) == 0 {
		return resp
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return Errored(http.StatusInternalServerError, fmt.Errorf("encoding JSON patch: %w", err))
	}
	pt := admissionv1.PatchTypeJSONPatch
	resp.Patch, resp.PatchType = patch, &pt
	return resp
}
