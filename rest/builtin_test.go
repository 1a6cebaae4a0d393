package rest

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/internal/codec/wire"
)

// A Config without a Scheme: the client registers the meta/v1 types only
// and knows the built-in kinds by their Go types.

func TestClientWithoutSchemeKnowsBuiltinKindsByGoType(t *testing.T) {
	c := testDefaultClient
	tests := []struct {
		name string
		obj  kruntime.Object
		want []schema.GroupVersionKind
	}{
		{"built-in kind", &appsv1.Deployment{}, []schema.GroupVersionKind{appsv1.SchemeGroupVersion.WithKind("Deployment")}},
		{"meta type from the scheme", &metav1.Status{}, []schema.GroupVersionKind{{Version: "v1", Kind: "Status"}}},
		{"unstructured", &unstructured.Unstructured{}, nil},
		{"unknown type", &metav1.PartialObjectMetadata{}, nil},
		{"nil", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.KindsOf(tt.obj); !slices.Equal(got, tt.want) {
				t.Fatalf("KindsOf = %v, want %v", got, tt.want)
			}
		})
	}
	if c.Scheme().Recognizes(corev1.SchemeGroupVersion.WithKind("ConfigMap")) {
		t.Error("the scheme of a Config without one registers ConfigMap")
	}
}

func TestClientWithoutSchemeNegotiatesProtobufForTypedRequestsOnly(t *testing.T) {
	cm := testCM("x", "")
	tests := []struct {
		name       string
		build      func(c *Client) *Request
		wantAccept string
		wantBodyCT string
		wantPrefix string
	}{
		{"untyped get asks JSON", func(c *Client) *Request { return c.Get().Resource("configmaps") }, acceptJSON, "", ""},
		{"typed get asks protobuf", func(c *Client) *Request { return c.Get().Resource("configmaps").Typed(&corev1.ConfigMap{}) }, acceptProtobuf, "", ""},
		{"typed create sends protobuf", func(c *Client) *Request {
			return c.Post().Namespace("n").Resource("configmaps").Body(cm).Typed(&corev1.ConfigMap{})
		}, acceptProtobuf, mediaProtobuf, wire.Magic},
		{"typed by a type without protobuf stays JSON", func(c *Client) *Request {
			return c.Get().Resource("configmaps").Typed(&unstructured.Unstructured{})
		}, acceptJSON, "", ""},
		{"typed request of another group stays JSON", func(c *Client) *Request {
			return c.Get().Group("example.com").Version("v1").Resource("widgets").Typed(&corev1.ConfigMap{})
		}, acceptJSON, "", ""},
		{"untyped create of a built-in object sends JSON with its kind", func(c *Client) *Request {
			return c.Post().Namespace("n").Resource("configmaps").Body(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}})
		}, acceptJSON, mediaJSON, `{"kind":"ConfigMap","apiVersion":"v1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, got := captureServerWith(t, 200, "application/json", []byte(`{}`), nil)
			_, _ = tt.build(c).DoRaw(context.Background())
			if a := got.header.Get("Accept"); a != tt.wantAccept {
				t.Errorf("Accept = %q, want %q", a, tt.wantAccept)
			}
			if ct := got.header.Get("Content-Type"); ct != tt.wantBodyCT {
				t.Errorf("Content-Type = %q, want %q", ct, tt.wantBodyCT)
			}
			if !bytes.HasPrefix(got.body, []byte(tt.wantPrefix)) {
				t.Errorf("body = %q, want prefix %q", got.body, tt.wantPrefix)
			}
		})
	}
}

func TestClientWithoutSchemeDecodesBuiltinKindsAndRefusesOthers(t *testing.T) {
	c := testDefaultClient
	pbCM := protoObject(t, testCM("x", "7"))
	pbStatus := protoObject(t, &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure, Reason: metav1.StatusReasonNotFound, Code: 404})
	pbDeployment := protoObject(t, &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: metav1.ObjectMeta{Name: "d"}})
	tests := []struct {
		name string
		mt   string
		body []byte
		want string
	}{
		{"protobuf of the kind", mediaProtobuf, pbCM, "ok"},
		{"JSON of the kind", mediaJSON, []byte(cmJSON("x", "7")), "ok"},
		{"protobuf failure Status", mediaProtobuf, pbStatus, "status-notfound"},
		{"protobuf of another kind", mediaProtobuf, pbDeployment, "decode-error"},
		{"JSON of another kind", mediaJSON, []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}}`), "decode-error"},
		{"malformed protobuf", mediaProtobuf, append([]byte(wire.Magic), 0xff, 0xff), "decode-error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got corev1.ConfigMap
			err := c.decode(tt.body, tt.mt, &got)
			if o := outcome(err); o != tt.want {
				t.Fatalf("decode = %s (%v), want %s", o, err, tt.want)
			}
			if err == nil && (got.Name != "x" || got.ResourceVersion != "7" || got.Kind != "ConfigMap") {
				t.Errorf("decoded %+v", got)
			}
		})
	}
}

func TestClientWithoutSchemeWatchesUntypedAsUnstructuredAndTypedAsTheType(t *testing.T) {
	body := []byte(jsonEventLine("ADDED", cmJSON("a", "1")))
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", mediaJSON)
		_, _ = w.Write(body)
	})
	c, _ := newTestClient(t, srv, nil)
	w, err := c.Get().Namespace("n").Resource("configmaps").Watch(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ev := <-w.ResultChan()
	w.Stop()
	if u, ok := ev.Object.(*unstructured.Unstructured); !ok || u.GetName() != "a" || u.GetKind() != "ConfigMap" {
		t.Fatalf("untyped watch: got %T %v", ev.Object, ev.Object)
	}

	frames := protoFrame(t, "ADDED", protoObject(t, testCM("b", "2")))
	psrv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", mediaProtobuf+";stream=watch")
		_, _ = w.Write(frames)
	})
	c, _ = newTestClient(t, psrv, nil)
	w, err = c.Get().Namespace("n").Resource("configmaps").Watch(context.Background(), func() kruntime.Object { return &corev1.ConfigMap{} })
	if err != nil {
		t.Fatal(err)
	}
	ev = <-w.ResultChan()
	w.Stop()
	if cm, ok := ev.Object.(*corev1.ConfigMap); !ok || cm.Name != "b" {
		t.Fatalf("typed watch: got %T %v (err %v)", ev.Object, ev.Object, w.Err())
	}
	var se *apierrors.StatusError
	if errors.As(w.Err(), &se) {
		t.Fatalf("typed watch: %v", se)
	}
}
