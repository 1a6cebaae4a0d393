package rest

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	pathvalidation "k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion/queryparams"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/internal/builtin"
	"github.com/kubego/kubego/internal/codec"
)

// Request is one API call being built. Builder methods record the first
// error instead of panicking; Do, DoRaw, Stream and Watch return it. A
// Request is not safe for concurrent use and is meant to be built and sent
// once.
type Request struct {
	c         *Client
	verb      string
	patchType types.PatchType

	group, version string
	namespace      string
	resource       string
	name           string
	nameSet        bool
	subresource    []string
	abs            []string
	absSet         bool

	params  url.Values
	headers http.Header
	timeout time.Duration
	ct      ContentType
	ctSet   bool
	// typed: the response decodes into a protobuf-capable Go type (Typed).
	typed  bool
	accept string

	body     any // nil, runtime.Object, []byte or io.Reader
	bodyJSON bool

	hints codec.Hints // Watch only

	// secrets are the credentials the request sent, to redact from what
	// the server sends back; set by send.
	secrets *secrets

	err error
}

// ErrInvalidRequest is wrapped by every error recorded while building a
// request (a bad name, unencodable parameters, …).
var ErrInvalidRequest = errors.New("rest: invalid request")

func (r *Request) fail(format string, args ...any) *Request {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrInvalidRequest, fmt.Sprintf(format, args...))
	}
	return r
}

func (r *Request) checkSegment(what, s string) bool {
	if s == "" {
		r.fail("%s must not be empty", what)
		return false
	}
	if msgs := pathvalidation.IsValidPathSegmentName(s); len(msgs) > 0 {
		r.fail("%s %q: %s", what, s, strings.Join(msgs, "; "))
		return false
	}
	return true
}

// Group sets the API group; "" is the core group (/api/v1).
func (r *Request) Group(g string) *Request {
	if strings.Contains(g, "/") {
		return r.fail("group %q contains a slash", g)
	}
	r.group = g
	return r
}

// Version sets the API version. For the core group the empty version means
// v1; other groups need one.
func (r *Request) Version(v string) *Request {
	if strings.Contains(v, "/") {
		return r.fail("version %q contains a slash", v)
	}
	r.version = v
	return r
}

// Namespace scopes the request to a namespace. The empty string means no
// namespace (cluster-scoped or all namespaces).
func (r *Request) Namespace(ns string) *Request {
	if ns != "" && !r.checkSegment("namespace", ns) {
		return r
	}
	r.namespace = ns
	return r
}

// Resource sets the resource (plural, lower case: "pods").
func (r *Request) Resource(res string) *Request {
	if r.checkSegment("resource", res) {
		r.resource = res
	}
	return r
}

// Name sets the object name. An empty name is an error.
func (r *Request) Name(name string) *Request {
	if r.checkSegment("name", name) {
		r.name, r.nameSet = name, true
	}
	return r
}

// SubResource appends subresource path segments ("status", "scale", "log").
func (r *Request) SubResource(parts ...string) *Request {
	for _, p := range parts {
		if !r.checkSegment("subresource", p) {
			return r
		}
	}
	r.subresource = append(r.subresource, parts...)
	return r
}

// AbsPath sets the raw path (after Config.Host's own path), joined from
// segments: for discovery, /version, /readyz. It wins over Group, Version,
// Namespace, Resource, Name and SubResource.
func (r *Request) AbsPath(segments ...string) *Request {
	r.abs, r.absSet = append([]string(nil), segments...), true
	return r
}

// Param adds a query parameter; repeated calls with the same key add values.
func (r *Request) Param(k, v string) *Request {
	if r.params == nil {
		r.params = url.Values{}
	}
	r.params.Add(k, v)
	return r
}

// metaV1 is the version option structs are encoded in.
var metaV1 = schema.GroupVersion{Version: "v1"}

// Params adds the query parameters of an option struct (metav1.ListOptions,
// GetOptions, DeleteOptions, CreateOptions, PatchOptions, UpdateOptions,
// corev1.PodLogOptions …), encoded through the scheme's parameter codec;
// the six meta/v1 option types by a plan made once per type, with the
// codec's result (see params.go). A nil opts adds nothing.
func (r *Request) Params(opts runtime.Object) *Request {
	if isNil(opts) {
		return r
	}
	vals, ok := fastParams(opts)
	if !ok {
		var err error
		vals, err = r.c.params.EncodeParameters(opts, metaV1)
		if err != nil && r.version != "" {
			vals, err = r.c.params.EncodeParameters(opts, schema.GroupVersion{Group: r.group, Version: r.version})
		}
		if err != nil && slices.ContainsFunc(r.c.builtinOnly(opts), func(k schema.GroupVersionKind) bool { return k.GroupVersion() == r.groupVersion() }) {
			// A built-in option kind of the request's own group/version
			// (corev1.PodLogOptions …) needs no conversion.
			vals, err = queryparams.Convert(opts)
		}
		if err != nil {
			return r.fail("encoding parameters %T: %v", opts, err)
		}
	}
	if r.params == nil {
		r.params = vals // made for this call: nothing else holds it
		return r
	}
	for k, vs := range vals {
		for _, v := range vs {
			r.Param(k, v)
		}
	}
	return r
}

// Body sets the request body: a runtime.Object (encoded in the negotiated
// format; JSON for patches), []byte or io.Reader (sent as is, Content-Type
// application/json unless set with SetHeader or by Patch), or any other
// value, marshalled as JSON. Only an io.Reader body cannot be replayed for
// retries. The body is read when the request is sent; the caller must not
// change it until then.
func (r *Request) Body(obj any) *Request {
	if isNil(obj) {
		r.body = nil
		return r
	}
	switch b := obj.(type) {
	case runtime.Object:
		r.body = b
	case []byte:
		r.body = b
	case io.Reader:
		r.body = b
	default:
		data, err := stdjson.Marshal(b)
		if err != nil {
			return r.fail("encoding body %T as JSON: %v", obj, err)
		}
		r.body = data
	}
	return r
}

// DeleteOptions sets the body of a DELETE request (one object or a
// collection) to opts, encoded as JSON without apiVersion and kind, which
// the server then takes to be those of its own group.
func (r *Request) DeleteOptions(opts metav1.DeleteOptions) *Request {
	opts.TypeMeta = metav1.TypeMeta{}
	data, err := stdjson.Marshal(&opts)
	if err != nil {
		return r.fail("encoding delete options: %v", err)
	}
	r.body = data
	return r
}

// SetHeader sets a request header, replacing earlier values.
func (r *Request) SetHeader(k string, v ...string) *Request {
	if r.headers == nil {
		r.headers = http.Header{}
	}
	r.headers.Del(k)
	for _, x := range v {
		r.headers.Add(k, x)
	}
	return r
}

// Timeout bounds the request: for Do and DoRaw from start to the end of the
// body (replacing Config.Timeout), for Stream and Watch the whole stream. It
// is also sent to the server as the timeout parameter of non-watch requests.
func (r *Request) Timeout(d time.Duration) *Request {
	if d < 0 {
		return r.fail("negative timeout")
	}
	r.timeout = d
	return r
}

// ContentType overrides Config.ContentType for this request.
func (r *Request) ContentType(ct ContentType) *Request {
	if ct < ContentTypeAuto || ct > ContentTypeProtobuf {
		return r.fail("unknown content type %d", int(ct))
	}
	r.ct, r.ctSet = ct, true
	return r
}

// Accept sets the raw Accept header, overriding negotiation (for example
// "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"). The
// response is decoded according to its own Content-Type.
func (r *Request) Accept(mediaTypes string) *Request {
	r.accept = mediaTypes
	return r
}

// groupVersion is the request's group/version, with v1 for the core group.
func (r *Request) groupVersion() schema.GroupVersion {
	v := r.version
	if v == "" && r.group == "" {
		v = "v1"
	}
	return schema.GroupVersion{Group: r.group, Version: v}
}

// URL returns the full URL the request will be sent to, or the error
// recorded while building it.
func (r *Request) URL() (*url.URL, error) {
	if r.err != nil {
		return nil, r.err
	}
	u := *r.c.base
	var p string
	if r.absSet {
		p = path.Join(append([]string{"/", u.Path}, r.abs...)...)
	} else {
		gv := r.groupVersion()
		if gv.Version == "" {
			return nil, fmt.Errorf("%w: group %q needs a version", ErrInvalidRequest, r.group)
		}
		parts := []string{u.Path}
		if gv.Group == "" {
			parts = append(parts, "api", gv.Version)
		} else {
			parts = append(parts, "apis", gv.Group, gv.Version)
		}
		if r.namespace != "" {
			parts = append(parts, "namespaces", r.namespace)
		}
		if r.resource != "" {
			parts = append(parts, r.resource)
		} else if r.nameSet || len(r.subresource) > 0 {
			return nil, fmt.Errorf("%w: name or subresource without a resource", ErrInvalidRequest)
		}
		if r.nameSet {
			parts = append(parts, r.name)
		}
		parts = append(parts, r.subresource...)
		p = "/" + strings.Join(trimEmpty(parts), "/")
	}
	u.Path, u.RawPath = p, ""
	q := url.Values{}
	for k, v := range r.params {
		q[k] = append([]string(nil), v...)
	}
	u.RawQuery = q.Encode()
	return &u, nil
}

func trimEmpty(parts []string) []string {
	out := parts[:0:0]
	for _, p := range parts {
		if p = strings.Trim(p, "/"); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// wantsProtobuf reports whether the request negotiates protobuf.
func (r *Request) wantsProtobuf() bool {
	ct := r.c.contentType
	if r.ctSet {
		ct = r.ct
	}
	switch ct {
	case ContentTypeJSON:
		return false
	case ContentTypeProtobuf:
		return true
	}
	if r.absSet {
		return false
	}
	gv := r.groupVersion()
	return r.c.isProtoGV(gv) || (r.typed && r.c.builtins && builtin.IsGroupVersion(gv))
}

// Typed tells the request that its response is decoded into objects of
// obj's Go type. Under ContentTypeAuto, a client whose Config named no
// scheme then negotiates protobuf for a built-in kind it knows by its Go
// type only (Client.KindsOf); without it such a request asks for JSON,
// which decodes into any target (an *unstructured.Unstructured, or a type
// made by the scheme). Watch calls it with newObject's object. Only obj's
// type is looked at: obj is neither kept nor modified, so one zero object
// can serve every request of its type.
func (r *Request) Typed(obj runtime.Object) *Request {
	if _, ok := obj.(protoMessage); ok && !isNil(obj) {
		r.typed = true
	}
	return r
}

// encodedBody is a request body ready to send.
type encodedBody struct {
	data        []byte    // replayable body
	reader      io.Reader // one-shot body
	contentType string
}

func (r *Request) encodeBody(proto bool) (encodedBody, error) {
	var eb encodedBody
	switch b := r.body.(type) {
	case nil:
		return eb, nil
	case runtime.Object:
		data, ct, err := r.c.encode(b, proto && r.patchType == "", r.groupVersion())
		if err != nil {
			return eb, err
		}
		eb.data, eb.contentType = data, ct
	case []byte:
		eb.data, eb.contentType = b, mediaJSON
	case io.Reader:
		eb.reader, eb.contentType = b, mediaJSON
	}
	if eb.data == nil && eb.reader == nil {
		eb.data = []byte{}
	}
	if r.patchType != "" {
		eb.contentType = string(r.patchType)
	}
	return eb, nil
}

func (eb encodedBody) newReader() io.Reader {
	if eb.reader != nil {
		return eb.reader
	}
	if eb.data == nil {
		return nil
	}
	return bytes.NewReader(eb.data)
}
