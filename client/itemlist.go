package client

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"

	"github.com/kubego/kubego/internal/codec/wire"
	"github.com/kubego/kubego/rest"
)

// protoItem is what the generated k8s.io/api types implement.
type protoItem interface {
	Unmarshal([]byte) error
}

// itemList receives a LIST response of a kind whose list Go type the rest
// client's scheme does not register (a built-in kind used without package
// scheme): the rest client decodes the list's metadata and keeps each item's
// bytes, protobuf or JSON; each decodes the items into objects of the item
// type, after checking the list's kind. It is a runtime.Object only to be
// decoded into.
type itemList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []json.RawMessage `json:"items"`

	proto [][]byte // the items of a protobuf list
}

func (l *itemList) DeepCopyObject() runtime.Object {
	out := &itemList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	for _, it := range l.Items {
		out.Items = append(out.Items, append(json.RawMessage(nil), it...))
	}
	for _, it := range l.proto {
		out.proto = append(out.proto, append([]byte(nil), it...))
	}
	return out
}

// Reset and Unmarshal make the list a protobuf message to the rest client:
// field 1 is the ListMeta, field 2 each item (the layout of every list of
// k8s.io/api).
func (l *itemList) Reset() { *l = itemList{} }

func (l *itemList) Unmarshal(b []byte) error {
	var err error
	if ferr := wire.BytesFields(b, func(num int, val []byte) {
		switch num {
		case 1:
			if e := l.ListMeta.Unmarshal(val); e != nil && err == nil {
				err = e
			}
		case 2:
			l.proto = append(l.proto, val)
		}
	}); ferr != nil {
		return ferr
	}
	return err
}

// each checks that the list is of kind want and calls yield for each item,
// decoded into an object of newObject, in order. It yields nothing when an
// item does not decode (a *rest.DecodeError).
func (l *itemList) each(want schema.GroupVersionKind, newObject func() runtime.Object, yield func(runtime.Object)) (metav1.ListMeta, error) {
	if got := l.GroupVersionKind(); got != want {
		return metav1.ListMeta{}, &rest.DecodeError{ContentType: l.contentType(), Err: fmt.Errorf("server sent %v, want %v", got, want)}
	}
	objs := make([]runtime.Object, 0, len(l.proto)+len(l.Items))
	for _, raw := range l.proto {
		o := newObject()
		p, ok := o.(protoItem)
		if !ok {
			return metav1.ListMeta{}, &rest.DecodeError{ContentType: mediaProtobuf, Err: fmt.Errorf("%T has no protobuf methods", o)}
		}
		if err := p.Unmarshal(raw); err != nil {
			return metav1.ListMeta{}, &rest.DecodeError{ContentType: mediaProtobuf, Err: err}
		}
		objs = append(objs, o)
	}
	for _, raw := range l.Items {
		o := newObject()
		if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, o); err != nil {
			return metav1.ListMeta{}, &rest.DecodeError{ContentType: "application/json", Err: err}
		}
		objs = append(objs, o)
	}
	for _, o := range objs {
		yield(o)
	}
	return l.ListMeta, nil
}

const mediaProtobuf = "application/vnd.kubernetes.protobuf"

func (l *itemList) contentType() string {
	if l.proto != nil {
		return mediaProtobuf
	}
	return "application/json"
}
