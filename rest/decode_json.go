package rest

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"

	"github.com/kubego/kubego/internal/codec/wire"
)

// decodeJSONInto is the fast path of a JSON decode into a caller's typed
// object. The apimachinery JSON serializer reads apiVersion and kind with a
// full encoding/json parse of the body before decoding it again into the
// target; for a list of thousands of objects that first parse is a large
// share of the cost. Here the top-level keys are found with a byte scan that
// skips every value unparsed, and the body is decoded once, with the same
// case-sensitive decoder and the same rules the serializer applies:
//
//   - a target the scheme does not know takes the body as is;
//   - a registered target takes a body whose apiVersion/kind, defaulted
//     from the target's first registered kind, is one of its kinds;
//   - an *unstructured.Unstructured takes any object with a kind, as a
//     map (decodeJSONUnstructured).
//
// Anything else (another kind such as a Status, a missing version, keys
// that differ from apiVersion/kind only by case, escapes or non-ASCII in
// the top-level keys or in the kind's strings, a body that is not an
// object) reports handled == false without touching into, and the caller
// takes the serializer's path, which gives the same answer it always has.
func (c *Client) decodeJSONInto(body []byte, into runtime.Object) (handled bool, err error) {
	switch u := into.(type) {
	case *unstructured.Unstructured:
		return decodeJSONUnstructured(body, u)
	case runtime.Unstructured, *runtime.Unknown:
		return false, nil
	}
	apiVersion, kind, ok := wire.PeekTypeMeta(body)
	if !ok {
		return false, nil
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return false, nil
	}
	actual := gv.WithKind(kind)
	kinds, _, err := c.scheme.ObjectKinds(into)
	if builtin := c.builtinOnly(into); builtin != nil {
		kinds, err = builtin, nil
	}
	switch {
	case runtime.IsNotRegisteredError(err):
	case err != nil:
		return false, nil
	default:
		actual = withDefaults(actual, kinds[0])
		if actual.Kind == "" || actual.Version == "" || !containsKind(kinds, actual) {
			return false, nil
		}
	}
	return true, kjson.UnmarshalCaseSensitivePreserveInts(body, into)
}

// decodeJSONUnstructured decodes a JSON object into u in one parse. The
// serializer's path parses such a body four times over (its apiVersion/kind
// sniff, then the decoder's validation of the body before handing it to
// Unstructured.UnmarshalJSON, which validates and parses it again into a
// map); the result is the same map. A body without a plain kind string
// (the serializer refuses it with a missing-kind error) or that PeekTypeMeta
// cannot read reports handled == false.
func decodeJSONUnstructured(body []byte, u *unstructured.Unstructured) (handled bool, err error) {
	_, kind, ok := wire.PeekTypeMeta(body)
	if !ok || kind == "" {
		return false, nil
	}
	m := make(map[string]any)
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &m); err != nil {
		return true, err
	}
	u.Object = m
	return true, nil
}

// withDefaults fills the parts of actual the body left out from def, as the
// JSON serializer does.
func withDefaults(actual, def schema.GroupVersionKind) schema.GroupVersionKind {
	if actual.Kind == "" {
		actual.Kind = def.Kind
	}
	if actual.Version == "" && actual.Group == "" {
		actual.Group, actual.Version = def.Group, def.Version
	}
	if actual.Version == "" && actual.Group == def.Group {
		actual.Version = def.Version
	}
	return actual
}

func containsKind(kinds []schema.GroupVersionKind, k schema.GroupVersionKind) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

// decodeBuiltinJSON is decode's generic JSON path for a built-in kind the
// client's scheme does not register (see Client.builtinOnly), taken when
// decodeJSONInto did not handle the body: a body of another kind (a
// failure Status: *apierrors.StatusError) is an error, not decoded into
// into; one of kinds is decoded as the serializer would.
func (c *Client) decodeBuiltinJSON(body []byte, mt string, into runtime.Object, kinds []schema.GroupVersionKind) error {
	out, gvk, err := c.json.Decode(body, &kinds[0], nil)
	if err == nil {
		return c.otherKind(mt, out, into)
	}
	if gvk == nil {
		return &DecodeError{ContentType: mt, Err: err}
	}
	if !slices.Contains(kinds, *gvk) {
		return &DecodeError{ContentType: mt, Err: fmt.Errorf("server sent %v, which does not decode into %T", *gvk, into)}
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, into); err != nil {
		return &DecodeError{ContentType: mt, Err: err}
	}
	return nil
}
