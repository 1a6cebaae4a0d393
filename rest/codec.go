package rest

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kubego/kubego/internal/codec/wire"
)

const (
	mediaJSON     = "application/json"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"

	acceptJSON     = mediaJSON
	acceptProtobuf = mediaProtobuf + ", " + mediaJSON
)

// DecodeError reports a response body (or watch event) that could not be
// decoded: a malformed body, an unsupported content type, a kind other than
// the one asked for.
type DecodeError struct {
	// ContentType is the media type of the body, without parameters.
	ContentType string
	Err         error
}

func (e *DecodeError) Error() string {
	ct := e.ContentType
	if ct == "" {
		ct = "unknown content type"
	}
	return fmt.Sprintf("rest: decoding %s: %v", ct, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// ErrUnsupportedMediaType is wrapped in a DecodeError for a body whose
// content type is neither JSON nor Kubernetes protobuf.
var ErrUnsupportedMediaType = errors.New("unsupported media type")

// mediaType returns the media type of a Content-Type header without
// parameters, sniffing the body when the header is absent or unparsable.
func mediaType(header string, body []byte) string {
	if mt, _, err := mime.ParseMediaType(header); err == nil {
		return mt
	}
	if wire.HasMagic(body) {
		return mediaProtobuf
	}
	return mediaJSON
}

func isJSON(mt string) bool {
	return mt == mediaJSON || strings.HasSuffix(mt, "+json")
}

// decode decodes body, of Content-Type header ct, into into. Errors are
// *DecodeError, or *apierrors.StatusError when the server sent a failure
// Status where an object was expected.
func (c *Client) decode(body []byte, ct string, into runtime.Object) error {
	mt := mediaType(ct, body)
	var (
		out runtime.Object
		err error
	)
	switch {
	case isJSON(mt):
		var handled bool
		if handled, err = c.decodeJSONInto(body, into); handled {
			if err != nil {
				return &DecodeError{ContentType: mt, Err: err}
			}
			return nil
		}
		if kinds := c.builtinOnly(into); kinds != nil {
			return c.decodeBuiltinJSON(body, mt, into, kinds)
		}
		out, _, err = c.json.Decode(body, nil, into)
	case mt == mediaProtobuf:
		if u, ok := into.(runtime.Unstructured); ok {
			return c.protoIntoUnstructured(body, u)
		}
		return c.decodeProtobufInto(body, into)
	default:
		return &DecodeError{ContentType: mt, Err: ErrUnsupportedMediaType}
	}
	if err != nil {
		return &DecodeError{ContentType: mt, Err: err}
	}
	if out != into {
		return c.otherKind(mt, out, into)
	}
	return nil
}

func kindOf(obj runtime.Object) string {
	if gvk := obj.GetObjectKind().GroupVersionKind(); gvk.Kind != "" {
		return gvk.String()
	}
	return fmt.Sprintf("%T", obj)
}

// protoIntoUnstructured decodes a protobuf object through the scheme and
// converts it, so an unstructured caller can talk protobuf to built-ins.
func (c *Client) protoIntoUnstructured(body []byte, into runtime.Unstructured) error {
	obj, gvk, err := c.proto.Decode(body, nil, nil)
	if err != nil {
		return &DecodeError{ContentType: mediaProtobuf, Err: err}
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return &DecodeError{ContentType: mediaProtobuf, Err: err}
	}
	into.SetUnstructuredContent(m)
	if gvk != nil {
		into.GetObjectKind().SetGroupVersionKind(*gvk)
	}
	return nil
}

// encode encodes a request body in protobuf when asked and possible, else
// JSON. Objects of a registered kind with no apiVersion/kind set are copied
// and given one (preferring gv), so callers' objects are never modified.
func (c *Client) encode(obj runtime.Object, proto bool, gv schema.GroupVersion) ([]byte, string, error) {
	registered := false
	if gvks := c.KindsOf(obj); len(gvks) > 0 {
		if _, isUnstructured := obj.(runtime.Unstructured); !isUnstructured {
			registered = true
			if obj.GetObjectKind().GroupVersionKind().Empty() {
				pick := gvks[0]
				for _, k := range gvks {
					if k.GroupVersion() == gv {
						pick = k
						break
					}
				}
				obj = obj.DeepCopyObject()
				obj.GetObjectKind().SetGroupVersionKind(pick)
			}
		}
	}
	var buf bytes.Buffer
	if proto && registered {
		err := c.proto.Encode(obj, &buf)
		if err == nil {
			return buf.Bytes(), mediaProtobuf, nil
		}
		if !protobuf.IsNotMarshalable(err) {
			return nil, "", fmt.Errorf("%w: encoding %T as protobuf: %v", ErrInvalidRequest, obj, err)
		}
		buf.Reset()
	}
	if err := c.json.Encode(obj, &buf); err != nil {
		return nil, "", fmt.Errorf("%w: encoding %T as JSON: %v", ErrInvalidRequest, obj, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), mediaJSON, nil
}
