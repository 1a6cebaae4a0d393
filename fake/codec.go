package fake

import (
	"bytes"
	"encoding/pem"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/kubego/kubego/fake/internal/defaults"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/kubego/kubego/scheme"
)

const (
	mediaJSON     = "application/json"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
	mediaYAML     = "application/yaml"
	maxBody       = 3 << 20 // kube-apiserver's request body limit
)

var protoSerializer = protobuf.NewSerializer(scheme.Default(), scheme.Default())

func pemCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// negotiate picks the response media type from Accept: protobuf when asked
// for and the resource is built-in, else JSON. ok is false when nothing
// acceptable can be served.
func negotiate(r *http.Request, protoOK bool) (mt string, ok bool) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return mediaJSON, true
	}
	for _, part := range strings.Split(accept, ",") {
		t, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if as := params["as"]; as != "" && as != "PartialObjectMetadata" && as != "PartialObjectMetadataList" {
			continue // Table and other conversions are not served
		}
		switch t {
		case mediaProtobuf:
			if protoOK {
				return mediaProtobuf, true
			}
		case mediaJSON, "*/*", "application/*":
			return mediaJSON, true
		}
	}
	return "", false
}

// readBody reads a request body, bounded.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, apierrors.NewBadRequest("reading request body: " + err.Error())
	}
	if len(data) > maxBody {
		return nil, apierrors.NewRequestEntityTooLargeError("limit is 3145728")
	}
	return data, nil
}

func contentType(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return mediaJSON
	}
	t, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ct
	}
	return t
}

// decodeBody turns a create/update body into unstructured content.
func decodeBody(res *resource, ct string, data []byte) (map[string]any, error) {
	switch ct {
	case mediaJSON:
		return decodeJSONMap(data)
	case mediaYAML:
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			return nil, apierrors.NewBadRequest("error decoding YAML: " + err.Error())
		}
		return decodeJSONMap(j)
	case mediaProtobuf:
		if !res.builtin {
			return nil, unsupportedMedia(ct)
		}
		obj, _, err := protoSerializer.Decode(data, nil, nil)
		if err != nil {
			return nil, apierrors.NewBadRequest("error decoding protobuf: " + err.Error())
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		gvk := obj.GetObjectKind().GroupVersionKind()
		u["apiVersion"], u["kind"] = gvk.GroupVersion().String(), gvk.Kind
		return u, nil
	}
	return nil, unsupportedMedia(ct)
}

func decodeJSONMap(data []byte) (map[string]any, error) {
	var u map[string]any
	if err := utiljson.Unmarshal(data, &u); err != nil {
		return nil, apierrors.NewBadRequest("error decoding JSON: " + err.Error())
	}
	if u == nil {
		return nil, apierrors.NewBadRequest("the request body is not a JSON object")
	}
	return u, nil
}

func unsupportedMedia(ct string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType,
		Reason:  metav1.StatusReasonUnsupportedMediaType,
		Message: fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf (got %q)", ct),
	}}
}

func notAcceptable() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusNotAcceptable, Reason: metav1.StatusReasonNotAcceptable,
		Message: "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
	}}
}

// normalize round-trips built-in content through its Go type, which drops
// unknown fields, sets kube-apiserver's defaults (defaults.Default; a kind the
// fake cannot default is refused under Options.RefuseUndefaulted) and gives the
// canonical shape (as kube-apiserver stores it), defaults a
// CustomResourceDefinition (defaultCRD), and applies a custom resource's structural schema (pruning, defaults,
// validation: a 422 Invalid listing every field at fault; old is the
// object an update replaces, nil on create; the CEL failures ratcheting
// lets through are Warning headers of req, which may be nil).
func (s *Server) normalize(req *request, res *resource, u, old map[string]any) (map[string]any, error) {
	if res.schema != nil {
		errs, warnings := res.schema.Check(u, old, res.rules)
		req.warn(warnings)
		if len(errs) > 0 {
			md, _ := u["metadata"].(map[string]any)
			name, _ := md["name"].(string)
			return nil, apierrors.NewInvalid(res.gvk.GroupKind(), name, errs)
		}
		return u, nil
	}
	if res.gvr == crdGVR {
		defaultCRD(u)
	}
	if !res.builtin {
		return u, nil
	}
	t := newTyped(res.gvk)
	if t == nil {
		return u, nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, t); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("unable to decode %s: %v", res.gvk.Kind, err))
	}
	if err := refuseUnsupportedWebhooks(t); err != nil {
		return nil, err
	}
	if !defaults.Default(t, s.clock.Now()) && s.opts.RefuseUndefaulted && defaults.ByAPIServer[res.gvk.GroupKind()] {
		return nil, notDefaulted(res.gvk)
	}
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(t)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out["apiVersion"], out["kind"] = res.gvk.GroupVersion().String(), res.gvk.Kind
	return out, nil
}

// writeObject answers with one stored object.
func writeObject(w http.ResponseWriter, mt string, code int, o *object) {
	if mt == mediaProtobuf {
		t, err := o.typedObject()
		if err != nil {
			writeError(w, mediaJSON, apierrors.NewInternalError(err))
			return
		}
		writeProto(w, code, t)
		return
	}
	data, err := o.encodeJSON()
	if err != nil {
		writeError(w, mt, apierrors.NewInternalError(err))
		return
	}
	writeRaw(w, mediaJSON, code, data)
}

// writeTyped answers with a typed object (Status, Scale, discovery).
func writeTyped(w http.ResponseWriter, mt string, code int, obj runtime.Object) {
	if mt == mediaProtobuf {
		if _, ok := obj.(interface{ Marshal() ([]byte, error) }); ok {
			writeProto(w, code, obj)
			return
		}
	}
	var buf bytes.Buffer
	if err := scheme.Codecs().LegacyCodec().Encode(obj, &buf); err != nil {
		// Types outside the scheme (unstructured) encode as plain JSON.
		buf.Reset()
		if err := unstructuredJSON(obj, &buf); err != nil {
			http.Error(w, "encoding failed", http.StatusInternalServerError)
			return
		}
	}
	writeRaw(w, mediaJSON, code, bytes.TrimRight(buf.Bytes(), "\n"))
}

func unstructuredJSON(obj runtime.Object, w io.Writer) error {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	data, err := utiljson.Marshal(u)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

func writeProto(w http.ResponseWriter, code int, obj runtime.Object) {
	var buf bytes.Buffer
	if err := protoSerializer.Encode(obj, &buf); err != nil {
		writeError(w, mediaJSON, apierrors.NewInternalError(err))
		return
	}
	writeRaw(w, mediaProtobuf, code, buf.Bytes())
}

func writeRaw(w http.ResponseWriter, mt string, code int, data []byte) {
	w.Header().Set("Content-Type", mt)
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(code)
	_, _ = w.Write(data)
}

// toStatus turns any error into the Status kube-apiserver would send.
func toStatus(err error) *metav1.Status {
	if se, ok := err.(apierrors.APIStatus); ok {
		st := se.Status()
		st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
		return &st
	}
	st := apierrors.NewInternalError(err).Status()
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	return &st
}

func writeError(w http.ResponseWriter, mt string, err error) {
	st := toStatus(err)
	if d := st.Details; d != nil && d.RetryAfterSeconds > 0 && (st.Code == http.StatusTooManyRequests || st.Code >= 500) {
		w.Header().Set("Retry-After", strconv.Itoa(int(d.RetryAfterSeconds)))
	}
	if mt != mediaProtobuf {
		mt = mediaJSON
	}
	writeTyped(w, mt, int(st.Code), st)
}

// writeList answers with a list of stored objects.
func writeList(w http.ResponseWriter, mt string, res *resource, lm metav1.ListMeta, items []*object) {
	if mt == mediaProtobuf {
		list := newTyped(res.listGVK())
		if list == nil {
			writeError(w, mediaJSON, apierrors.NewInternalError(errNotBuiltin))
			return
		}
		objs := make([]runtime.Object, len(items))
		for i, o := range items {
			t, err := o.typedObject()
			if err != nil {
				writeError(w, mt, apierrors.NewInternalError(err))
				return
			}
			objs[i] = t
		}
		if err := meta.SetList(list, objs); err != nil {
			writeError(w, mt, apierrors.NewInternalError(err))
			return
		}
		if la, err := meta.ListAccessor(list); err == nil {
			la.SetResourceVersion(lm.ResourceVersion)
			la.SetContinue(lm.Continue)
			la.SetRemainingItemCount(lm.RemainingItemCount)
		}
		list.GetObjectKind().SetGroupVersionKind(res.listGVK())
		writeProto(w, http.StatusOK, list)
		return
	}
	var buf bytes.Buffer
	buf.Grow(64 + len(items)*512)
	lgvk := res.listGVK()
	buf.WriteString(`{"kind":`)
	writeJSONString(&buf, lgvk.Kind)
	buf.WriteString(`,"apiVersion":`)
	writeJSONString(&buf, lgvk.GroupVersion().String())
	buf.WriteString(`,"metadata":`)
	lmData, _ := utiljson.Marshal(lm)
	buf.Write(lmData)
	buf.WriteString(`,"items":[`)
	for i, o := range items {
		if i > 0 {
			buf.WriteByte(',')
		}
		data, err := o.encodeJSON()
		if err != nil {
			writeError(w, mt, apierrors.NewInternalError(err))
			return
		}
		buf.Write(data)
	}
	buf.WriteString("]}")
	writeRaw(w, mediaJSON, http.StatusOK, buf.Bytes())
}

func writeJSONString(buf *bytes.Buffer, s string) {
	data, _ := utiljson.Marshal(s)
	buf.Write(data)
}
