package rest

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/internal/codec/wire"
	"github.com/kubego/kubego/scheme"
)

func statusJSON(code int32, reason metav1.StatusReason, msg string) []byte {
	return []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"` + msg + `","reason":"` + string(reason) + `","code":` + itoa(int(code)) + `}`)
}

func itoa(i int) string { return strconv.Itoa(i) }

func statusProto(t testing.TB, st *metav1.Status) []byte {
	t.Helper()
	st = st.DeepCopy()
	st.APIVersion, st.Kind = "v1", "Status"
	var buf bytes.Buffer
	c, err := NewClient(&Config{Host: "https://x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.proto.Encode(st, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestNonSuccessResponsesBecomeStatusErrors(t *testing.T) {
	type check func(error) bool
	tests := []struct {
		name    string
		code    int
		ct      string
		body    []byte
		is      check
		wantMsg string
	}{
		{"404 JSON Status", 404, mediaJSON, statusJSON(404, metav1.StatusReasonNotFound, `configmaps \"x\" not found`), apierrors.IsNotFound, `configmaps "x" not found`},
		{"409 JSON Status", 409, mediaJSON, statusJSON(409, metav1.StatusReasonConflict, "stale"), apierrors.IsConflict, "stale"},
		{"410 JSON Status", 410, mediaJSON, statusJSON(410, metav1.StatusReasonExpired, "too old"), apierrors.IsResourceExpired, "too old"},
		{"403 protobuf Status", 403, mediaProtobuf, nil, apierrors.IsForbidden, "nope"},
		{"404 HTML body", 404, "text/html", []byte("<html>not here</html>"), apierrors.IsNotFound, "not here"},
		{"409 empty body", 409, "", nil, apierrors.IsConflict, ""},
		{"429 plain text", 429, "text/plain", []byte("slow down"), apierrors.IsTooManyRequests, "slow down"},
		{"500 garbage JSON", 500, mediaJSON, []byte("{not json"), apierrors.IsInternalError, ""},
		{"503 no body", 503, "", nil, apierrors.IsServiceUnavailable, ""},
		{"401 no body", 401, "", nil, apierrors.IsUnauthorized, ""},
		{"400 JSON that is not a Status", 400, mediaJSON, []byte(`{"kind":"Pod"}`), apierrors.IsBadRequest, ""},
		{"422 JSON Status", 422, mediaJSON, statusJSON(422, metav1.StatusReasonInvalid, "bad field"), apierrors.IsInvalid, "bad field"},
		{"504 binary garbage", 504, "application/octet-stream", []byte{0xff, 0xfe, 0x00}, apierrors.IsTimeout, ""},
		{"418 unusual code", 418, "", nil, func(err error) bool { return apierrors.ReasonForError(err) == metav1.StatusReasonUnknown }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if tt.ct == mediaProtobuf {
				body = statusProto(t, &metav1.Status{Status: metav1.StatusFailure, Code: 403, Reason: metav1.StatusReasonForbidden, Message: "nope"})
			}
			c, _ := captureServer(t, tt.code, tt.ct, body)
			res := c.Get().Namespace("n").Resource("configmaps").Name("x").Do(context.Background())
			err := res.Error()
			var se *apierrors.StatusError
			if !errors.As(err, &se) {
				t.Fatalf("error %T %v is not a *StatusError", err, err)
			}
			if !tt.is(err) {
				t.Errorf("predicate false for %v (reason %s)", err, apierrors.ReasonForError(err))
			}
			if int(se.ErrStatus.Code) != tt.code {
				t.Errorf("code = %d, want %d", se.ErrStatus.Code, tt.code)
			}
			if tt.wantMsg != "" && !strings.Contains(err.Error(), tt.wantMsg) && !causesContain(se, tt.wantMsg) {
				t.Errorf("message %q (causes %v) does not contain %q", err.Error(), se.ErrStatus.Details, tt.wantMsg)
			}
			if res.StatusCode() != tt.code {
				t.Errorf("StatusCode = %d", res.StatusCode())
			}
			if err := res.Into(&corev1.ConfigMap{}); !errors.As(err, &se) {
				t.Errorf("Into error = %v", err)
			}
		})
	}
}

func TestResultIntoDecodesByResponseContentType(t *testing.T) {
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: "x", ResourceVersion: "7"}, Data: map[string]string{"k": "v"}}
	var pb bytes.Buffer
	c0, _ := NewClient(&Config{Host: "https://x"})
	if err := c0.proto.Encode(cm, &pb); err != nil {
		t.Fatal(err)
	}
	js := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","resourceVersion":"7"},"data":{"k":"v"}}`)
	for _, tc := range []struct {
		name string
		ct   string
		body []byte
	}{{"json", mediaJSON, js}, {"protobuf", mediaProtobuf, pb.Bytes()}, {"json without header", "", js}, {"protobuf without header", "", pb.Bytes()}} {
		t.Run(tc.name+" into typed", func(t *testing.T) {
			c, _ := captureServer(t, 200, tc.ct, tc.body)
			var got corev1.ConfigMap
			if err := c.Get().Namespace("n").Resource("configmaps").Name("x").Do(context.Background()).Into(&got); err != nil {
				t.Fatal(err)
			}
			if got.Name != "x" || got.Data["k"] != "v" || got.ResourceVersion != "7" {
				t.Errorf("got %+v", got)
			}
		})
		t.Run(tc.name+" into unstructured", func(t *testing.T) {
			c, _ := captureServer(t, 200, tc.ct, tc.body)
			var got unstructured.Unstructured
			if err := c.Get().Namespace("n").Resource("configmaps").Name("x").Do(context.Background()).Into(&got); err != nil {
				t.Fatal(err)
			}
			if got.GetName() != "x" || got.GetKind() != "ConfigMap" {
				t.Errorf("got %v", got.Object)
			}
		})
	}
}

// widget is a CRD-like Go type registered nowhere.
type widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size int `json:"size"`
	} `json:"spec"`
}

func (w *widget) DeepCopyObject() runtimeObject { c := *w; return &c }

func TestResultIntoDecodesUnregisteredTypesFromJSON(t *testing.T) {
	c, _ := captureServer(t, 200, mediaJSON, []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":3}}`))
	var w widget
	if err := c.Get().Group("example.com").Version("v1").Resource("widgets").Name("w").Do(context.Background()).Into(&w); err != nil {
		t.Fatal(err)
	}
	if w.Name != "w" || w.Spec.Size != 3 {
		t.Errorf("got %+v", w)
	}
}

func TestResultIntoRejectsBadBodies(t *testing.T) {
	tests := []struct {
		name string
		ct   string
		body []byte
		want error
	}{
		{"empty", mediaJSON, nil, ErrEmptyBody},
		{"yaml", "application/yaml", []byte("a: b"), ErrUnsupportedMediaType},
		{"malformed JSON", mediaJSON, []byte(`{"kind":`), nil},
		{"malformed protobuf", mediaProtobuf, append([]byte(wire.Magic), 0xff, 0xff), nil},
		{"wrong kind", mediaJSON, []byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}`), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := captureServer(t, 200, tt.ct, tt.body)
			err := c.Get().Namespace("n").Resource("configmaps").Name("x").Do(context.Background()).Into(&corev1.ConfigMap{})
			if err == nil {
				t.Fatal("no error")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
			var de *DecodeError
			if tt.want != ErrEmptyBody && !errors.As(err, &de) {
				t.Errorf("error %T is not a *DecodeError", err)
			}
		})
	}
}

func TestDefaultSchemeKnowsProtobufGroups(t *testing.T) {
	c, err := NewClient(&Config{Host: "https://x", Scheme: scheme.Default()})
	if err != nil {
		t.Fatal(err)
	}
	for gv, want := range map[[2]string]bool{{"", "v1"}: true, {"apps", "v1"}: true, {"example.com", "v1"}: false, {"apps", "v9"}: false} {
		if got := c.isProtoGV(schemaGV(gv[0], gv[1])); got != want {
			t.Errorf("isProtoGV(%v) = %v, want %v", gv, got, want)
		}
	}
	_ = http.StatusOK
}

func causesContain(se *apierrors.StatusError, msg string) bool {
	if se.ErrStatus.Details == nil {
		return false
	}
	for _, c := range se.ErrStatus.Details.Causes {
		if strings.Contains(c.Message, msg) {
			return true
		}
	}
	return false
}
