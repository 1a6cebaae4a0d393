package rest

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// serializerDecode is the decode that existed before the fast path: the
// apimachinery JSON serializer, then the same outcome mapping as decode.
func serializerDecode(c *Client, body []byte, into runtime.Object) error {
	out, _, err := c.json.Decode(body, nil, into)
	if err != nil {
		return &DecodeError{ContentType: mediaJSON, Err: err}
	}
	if out != into {
		if st, ok := out.(*metav1.Status); ok && st.Status == metav1.StatusFailure {
			return statusErrorFrom(st, 0)
		}
		return &DecodeError{ContentType: mediaJSON, Err: errors.New("other kind")}
	}
	return nil
}

// outcome classifies a decode error the way callers see it.
func outcome(err error) string {
	var de *DecodeError
	switch {
	case err == nil:
		return "ok"
	case apierrors.IsNotFound(err):
		return "status-notfound"
	case isStatusError(err):
		return "status"
	case errors.As(err, &de):
		return "decode-error"
	}
	return "other: " + err.Error()
}

func TestJSONDecodeMatchesTheSerializer(t *testing.T) {
	notFound := `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"pods \"x\" not found"}`
	cases := []struct {
		name string
		body string
		into func() runtime.Object
		want string
	}{
		{"a pod into a pod", `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","labels":{"k":"v"}},"spec":{"containers":[{"name":"c","image":"i"}]}}`, newPod, "ok"},
		{"a pod with apiVersion last", `{"metadata":{"name":"a"},"spec":{},"apiVersion":"v1","kind":"Pod"}`, newPod, "ok"},
		{"a pod with no type meta takes the target's kind", `{"metadata":{"name":"a"}}`, newPod, "ok"},
		{"a pod with only a kind", `{"kind":"Pod","metadata":{"name":"a"}}`, newPod, "ok"},
		{"unknown fields are ignored", `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"},"bogus":{"x":[1,2,"]"]}}`, newPod, "ok"},
		{"a failure Status where a pod was expected", notFound, newPod, "status-notfound"},
		{"a success Status where a pod was expected", `{"kind":"Status","apiVersion":"v1","status":"Success"}`, newPod, "decode-error"},
		{"another kind", `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}`, newPod, "decode-error"},
		{"another version of the kind", `{"kind":"Deployment","apiVersion":"apps/v1beta1","metadata":{"name":"a"}}`, func() runtime.Object { return &corev1.Pod{} }, "decode-error"},
		{"a case-folded kind key goes the slow way", `{"Kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}`, newPod, "decode-error"},
		{"a duplicate kind, last wins", `{"kind":"Pod","apiVersion":"v1","kind":"ConfigMap"}`, newPod, "decode-error"},
		{"a null kind", `{"kind":null,"apiVersion":"v1","metadata":{"name":"a"}}`, newPod, "ok"},
		{"a kind of the wrong type", `{"kind":7,"apiVersion":"v1"}`, newPod, "decode-error"},
		{"an escaped kind", `{"kind":"P\u006fd","apiVersion":"v1"}`, newPod, "ok"},
		{"a bad apiVersion", `{"kind":"Pod","apiVersion":"a/b/c"}`, newPod, "decode-error"},
		{"a field of the wrong type", `{"kind":"Pod","apiVersion":"v1","metadata":{"name":7}}`, newPod, "decode-error"},
		{"malformed JSON", `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"`, newPod, "decode-error"},
		{"trailing garbage", `{"kind":"Pod","apiVersion":"v1"} x`, newPod, "decode-error"},
		{"an array", `[{"kind":"Pod"}]`, newPod, "decode-error"},
		{"a list into a list", `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`, func() runtime.Object { return &corev1.PodList{} }, "ok"},
		{"metadata into an unregistered type", `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"a"}}`, func() runtime.Object { return &metav1.PartialObjectMetadata{} }, "ok"},
		{"an unregistered type with a bad apiVersion", `{"kind":"PartialObjectMetadata","apiVersion":"a/b/c"}`, func() runtime.Object { return &metav1.PartialObjectMetadata{} }, "decode-error"},
		{"unstructured", `{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"a"}}`, newUnstructured, "ok"},
		{"unstructured keeps big integers exact", `{"kind":"Widget","apiVersion":"example.com/v1","spec":{"n":9007199254740993,"f":1.5,"l":[1,"x",null,{"a":{}}]}}`, newUnstructured, "ok"},
		{"unstructured without a kind", `{"apiVersion":"example.com/v1","metadata":{"name":"a"}}`, newUnstructured, "decode-error"},
		{"unstructured with a null kind", `{"kind":null,"apiVersion":"example.com/v1"}`, newUnstructured, "decode-error"},
		{"unstructured with a duplicate kind, last wins", `{"kind":"A","apiVersion":"example.com/v1","kind":"B"}`, newUnstructured, "ok"},
		{"unstructured with a case-folded key", `{"Kind":"A","kind":"B","apiVersion":"example.com/v1"}`, newUnstructured, "ok"},
		{"unstructured malformed after the kind", `{"kind":"Widget","apiVersion":"example.com/v1","spec":{"a":}}`, newUnstructured, "decode-error"},
		{"unstructured with trailing garbage", `{"kind":"Widget","apiVersion":"v1"} x`, newUnstructured, "decode-error"},
		{"unstructured from an array", `[{"kind":"Widget"}]`, newUnstructured, "decode-error"},
		{"unstructured Status is kept as an object", notFound, newUnstructured, "ok"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fast, slow := tc.into(), tc.into()
			gotErr := testCodecClient.decode([]byte(tc.body), "application/json", fast)
			wantErr := serializerDecode(testCodecClient, []byte(tc.body), slow)
			if got := outcome(gotErr); got != tc.want {
				t.Fatalf("decode: %s (%v), want %s", got, gotErr, tc.want)
			}
			if got, want := outcome(gotErr), outcome(wantErr); got != want {
				t.Fatalf("decode: %s (%v), the serializer: %s (%v)", got, gotErr, want, wantErr)
			}
			if gotErr == nil && !reflect.DeepEqual(fast, slow) {
				t.Fatalf("decoded\n%#v\nthe serializer decoded\n%#v", fast, slow)
			}
			// A client that names no scheme knows the built-in kinds by
			// their Go types and must decide the same.
			byType := tc.into()
			typeErr := testDefaultClient.decode([]byte(tc.body), "application/json", byType)
			if got, want := outcome(typeErr), outcome(gotErr); got != want {
				t.Fatalf("decode without a scheme: %s (%v), with the scheme: %s (%v)", got, typeErr, want, gotErr)
			}
			if typeErr == nil && !reflect.DeepEqual(byType, fast) {
				t.Fatalf("decoded without a scheme\n%#v\nwith the scheme\n%#v", byType, fast)
			}
		})
	}
}

func newPod() runtime.Object { return &corev1.Pod{} }

func newUnstructured() runtime.Object { return &unstructured.Unstructured{} }

// FuzzJSONDecodeMatchesTheSerializer checks that the fast path and the
// serializer agree on every body: same outcome, same decoded object.
func FuzzJSONDecodeMatchesTheSerializer(f *testing.F) {
	for _, s := range []string{
		`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}`,
		`{"kind":"Status","apiVersion":"v1","status":"Failure","code":404,"reason":"NotFound"}`,
		`{"metadata":{"name":"a"},"kind":"ConfigMap"}`,
		`{"Kind":"Pod","kind":"Pod","apiVersion":"v1"}`,
		`{"kind":"Pod","apiVersion":"v1","spec":{"containers":[{"name":"\"}"}]}}`,
		`{"kind":"Widget","apiVersion":"example.com/v1","spec":{"n":12345678901234567890,"m":{"a":[true,null]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, into := range []func() runtime.Object{newPod, newUnstructured} {
			fast, slow := into(), into()
			gotErr := testCodecClient.decode(body, "application/json", fast)
			wantErr := serializerDecode(testCodecClient, body, slow)
			if got, want := outcome(gotErr), outcome(wantErr); got != want {
				t.Fatalf("%T: decode: %s (%v), the serializer: %s (%v)", fast, got, gotErr, want, wantErr)
			}
			if gotErr == nil && !reflect.DeepEqual(fast, slow) {
				t.Fatalf("decoded\n%#v\nthe serializer decoded\n%#v", fast, slow)
			}
		}
	})
}

// jsonDecoders are the two ways the JSON benchmarks decode: apimachinery's
// serializer, and the client's own decode.
var jsonDecoders = []struct {
	name   string
	decode func([]byte, runtime.Object) error
}{
	{"serializer", func(d []byte, o runtime.Object) error { return serializerDecode(testCodecClient, d, o) }},
	{"decode", func(d []byte, o runtime.Object) error { return testCodecClient.decode(d, mediaJSON, o) }},
}

// BenchmarkDecodeJSONPodList decodes 500 realistic Pods from JSON into a
// typed list, by the serializer (the former path) and by decode.
func BenchmarkDecodeJSONPodList(b *testing.B) {
	var buf bytes.Buffer
	if err := testCodecClient.json.Encode(realisticPodList(500), &buf); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	for _, bc := range jsonDecoders {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var out corev1.PodList
				if err := bc.decode(data, &out); err != nil {
					b.Fatal(err)
				}
				if len(out.Items) != 500 {
					b.Fatal("short list")
				}
			}
		})
	}
}

// BenchmarkDecodeJSONUnstructured decodes one custom resource of about
// 1.5 KiB of nested free-form JSON into an *unstructured.Unstructured (what
// a dynamic watch does per event), by the serializer and by decode.
func BenchmarkDecodeJSONUnstructured(b *testing.B) {
	var spec strings.Builder
	spec.WriteString(`{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w-1","namespace":"ns","uid":"8d2c1f3e-1111-2222-3333-444455556666","resourceVersion":"12345","labels":{"app":"w-1"}},"spec":{`)
	for i := range 12 {
		if i > 0 {
			spec.WriteString(",")
		}
		fmt.Fprintf(&spec, `"field-%d":{"name":"value-%d-abcdef","count":%d,"ratio":%d.25,"items":["a-%d","b-%d","c-%d"],"nested":{"on":true,"x":null}}`, i, i, i*1000, i, i, i, i)
	}
	spec.WriteString(`}}`)
	data := []byte(spec.String())
	for _, bc := range jsonDecoders {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var out unstructured.Unstructured
				if err := bc.decode(data, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
