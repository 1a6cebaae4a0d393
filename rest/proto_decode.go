package rest

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/internal/codec"
	"github.com/kubego/kubego/internal/codec/dedup"
	"github.com/kubego/kubego/internal/codec/wire"
)

// protoMessage is what the generated Kubernetes types implement.
type protoMessage interface {
	Reset()
	Unmarshal([]byte) error
}

// protoKind is one kind a Go type is registered as, with its apiVersion
// spelled as the wire spells it.
type protoKind struct {
	apiVersion string
	gvk        schema.GroupVersionKind
}

// decodeProtoInto decodes a protobuf object (magic and envelope included)
// straight into into when the envelope names one of into's registered
// kinds. It reads the envelope in place, where the generic decoder copies
// the object's bytes out of it first. handled is false when this path does
// not apply (unregistered type, another kind, an encoded or malformed
// envelope): the caller then uses the generic decoder, which also produces
// the errors for malformed input.
//
// With a table, a type the plan decoder handles is decoded by plan,
// sharing values through share (see codec.Hints.Share).
func (c *Client) decodeProtoInto(body []byte, into runtime.Object, share *dedup.Table) (handled bool, err error) {
	m, e, ok := plainEnvelope(body, into)
	if !ok {
		return false, nil
	}
	kinds := c.protoKinds(into)
	for _, k := range kinds {
		if k.gvk.Kind == string(e.Kind) && k.apiVersion == string(e.APIVersion) {
			if err := c.unmarshalProto(e.Raw, m, into, share); err != nil {
				return true, err
			}
			into.GetObjectKind().SetGroupVersionKind(k.gvk)
			return true, nil
		}
	}
	return false, nil
}

// decodeProtoShared decodes a protobuf object into into by plan, sharing
// values through share, for registered and unregistered protobuf types
// alike; handled is false when neither in-place path applies.
func (c *Client) decodeProtoShared(body []byte, into runtime.Object, share *dedup.Table) (handled bool, err error) {
	if handled, err := c.decodeProtoInto(body, into, share); handled {
		return true, err
	}
	if len(c.protoKinds(into)) == 0 {
		return c.decodeUnregisteredProto(body, into, share)
	}
	return false, nil
}

// unmarshalProto decodes the message raw into into (which is m): by plan,
// sharing values, when share is set and the type has a plan; otherwise by
// the generated method.
func (c *Client) unmarshalProto(raw []byte, m protoMessage, into runtime.Object, share *dedup.Table) error {
	planned := false
	var err error
	if share != nil {
		planned, err = codec.Unmarshal(&c.plans, raw, into, share)
	}
	if !planned {
		m.Reset()
		err = m.Unmarshal(raw)
	}
	if err != nil {
		return &DecodeError{ContentType: mediaProtobuf, Err: err}
	}
	return nil
}

// protoKinds returns the kinds into's Go type is registered as (KindsOf),
// cached per type.
func (c *Client) protoKinds(into runtime.Object) []protoKind {
	t := reflect.TypeOf(into)
	if v, ok := c.kinds.Load(t); ok {
		return v.([]protoKind)
	}
	gvks := c.KindsOf(into)
	kinds := make([]protoKind, 0, len(gvks))
	for _, g := range gvks {
		kinds = append(kinds, protoKind{apiVersion: g.GroupVersion().String(), gvk: g})
	}
	c.kinds.Store(t, kinds)
	return kinds
}

// plainEnvelope returns into as a protobuf message and the envelope of
// body, read in place; ok is false when into has no protobuf methods or the
// envelope is malformed or not plain (only the generic decoder handles
// those).
func plainEnvelope(body []byte, into runtime.Object) (protoMessage, wire.Envelope, bool) {
	m, ok := into.(protoMessage)
	if !ok {
		return nil, wire.Envelope{}, false
	}
	e, err := wire.ReadEnvelope(body)
	if err != nil || !e.Plain {
		return nil, wire.Envelope{}, false
	}
	return m, e, true
}
