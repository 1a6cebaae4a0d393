package rest

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/internal/codec/dedup"
)

// decodeProtobufInto decodes a Kubernetes protobuf body into into. For a
// registered target the scheme checks the kind: another kind decodes into a
// new object, a failure Status becomes an *apierrors.StatusError and
// anything else a *DecodeError. A target the scheme does not know but that
// has protobuf methods (*metav1.PartialObjectMetadata and its List, for
// example) takes the message as is, except that a Status is still reported
// as an error; it is then given the apiVersion and kind of the envelope
// when it has none, since protobuf messages do not carry them inside.
//
// Both kinds of target are decoded straight from the body when the
// envelope is plain (no content encoding), without the copy of the object's
// bytes the generic decoder makes first.
func (c *Client) decodeProtobufInto(body []byte, into runtime.Object) error {
	if handled, err := c.decodeProtoInto(body, into, nil); handled {
		return err
	}
	if kinds := c.builtinOnly(into); kinds != nil {
		return c.decodeBuiltinProtobuf(body, into, kinds)
	}
	unregistered := len(c.protoKinds(into)) == 0
	if unregistered {
		if handled, err := c.decodeUnregisteredProto(body, into, nil); handled {
			return err
		}
	}
	out, gvk, err := c.proto.Decode(body, nil, into)
	if unregistered && isStatusKind(gvk) {
		if _, isStatus := into.(*metav1.Status); !isStatus {
			st := &metav1.Status{}
			if _, _, serr := c.proto.Decode(body, nil, st); serr == nil && st.Status == metav1.StatusFailure {
				return statusErrorFrom(st, 0)
			}
			return &DecodeError{ContentType: mediaProtobuf, Err: fmt.Errorf("server sent %s, which does not decode into %T", gvk, into)}
		}
	}
	if err != nil {
		return &DecodeError{ContentType: mediaProtobuf, Err: err}
	}
	if out != into {
		return c.otherKind(mediaProtobuf, out, into)
	}
	if unregistered && !gvk.Empty() && into.GetObjectKind().GroupVersionKind().Empty() {
		into.GetObjectKind().SetGroupVersionKind(*gvk)
	}
	return nil
}

// decodeUnregisteredProto decodes a plain envelope in place into a
// protobuf-capable target the scheme does not know, and gives it the
// envelope's apiVersion and kind. handled is false, with into untouched,
// when the target has no protobuf methods, the envelope is not plain or is
// malformed, its apiVersion does not parse, or it holds a Status: the
// generic path then decides, and produces the errors.
// With a table it decodes by plan when the type allows, as
// decodeProtoInto does.
func (c *Client) decodeUnregisteredProto(body []byte, into runtime.Object, share *dedup.Table) (handled bool, err error) {
	m, e, ok := plainEnvelope(body, into)
	if !ok {
		return false, nil
	}
	gv, err := schema.ParseGroupVersion(string(e.APIVersion))
	if err != nil {
		return false, nil
	}
	gvk := gv.WithKind(string(e.Kind))
	if isStatusKind(&gvk) {
		return false, nil
	}
	if err := c.unmarshalProto(e.Raw, m, into, share); err != nil {
		return true, err
	}
	if !gvk.Empty() && into.GetObjectKind().GroupVersionKind().Empty() {
		into.GetObjectKind().SetGroupVersionKind(gvk)
	}
	return true, nil
}

func isStatusKind(gvk *schema.GroupVersionKind) bool {
	return gvk != nil && gvk.Kind == "Status" && gvk.Group == "" && gvk.Version == "v1"
}

// otherKind is the error for a body that decoded as out instead of into: the
// server's failure Status as an *apierrors.StatusError, else a *DecodeError.
func (c *Client) otherKind(mt string, out, into runtime.Object) error {
	if st, ok := out.(*metav1.Status); ok && st.Status == metav1.StatusFailure {
		return statusErrorFrom(st, 0)
	}
	return &DecodeError{ContentType: mt, Err: fmt.Errorf("server sent %s, which does not decode into %T", kindOf(out), into)}
}

// decodeBuiltinProtobuf is decodeProtobufInto's generic path for a built-in
// kind the client's scheme does not register (see Client.builtinOnly): the
// body decodes into into only when its envelope names one of kinds; a
// failure Status is an *apierrors.StatusError, anything else a
// *DecodeError.
func (c *Client) decodeBuiltinProtobuf(body []byte, into runtime.Object, kinds []schema.GroupVersionKind) error {
	out, gvk, err := c.proto.Decode(body, nil, nil)
	if err == nil {
		return c.otherKind(mediaProtobuf, out, into)
	}
	if gvk == nil {
		return &DecodeError{ContentType: mediaProtobuf, Err: err}
	}
	if !slices.Contains(kinds, *gvk) {
		return &DecodeError{ContentType: mediaProtobuf, Err: fmt.Errorf("server sent %v, which does not decode into %T", *gvk, into)}
	}
	if _, _, err := c.proto.Decode(body, nil, into); err != nil {
		return &DecodeError{ContentType: mediaProtobuf, Err: err}
	}
	into.GetObjectKind().SetGroupVersionKind(*gvk)
	return nil
}
