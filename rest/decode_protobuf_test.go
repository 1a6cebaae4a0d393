package rest

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func protoBody(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := testCodecClient.proto.Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestProtobufDecodeOfMetadata(t *testing.T) {
	meta := metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"}
	body := protoBody(t, &metav1.PartialObjectMetadataList{TypeMeta: meta, ListMeta: metav1.ListMeta{ResourceVersion: "7"},
		Items: []metav1.PartialObjectMetadata{{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"k": "v"}}}}})

	t.Run("a list takes the envelope's kind", func(t *testing.T) {
		var got metav1.PartialObjectMetadataList
		if err := testCodecClient.decode(body, "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", &got); err != nil {
			t.Fatal(err)
		}
		if got.TypeMeta != meta || got.ResourceVersion != "7" || len(got.Items) != 1 || got.Items[0].Labels["k"] != "v" {
			t.Fatalf("decoded %+v", got)
		}
	})
	t.Run("a failure Status is a StatusError", func(t *testing.T) {
		st := protoBody(t, &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure, Reason: metav1.StatusReasonNotFound, Code: 404})
		err := testCodecClient.decode(st, mediaProtobuf, &metav1.PartialObjectMetadata{})
		if !apierrors.IsNotFound(err) {
			t.Fatalf("got %v, want NotFound", err)
		}
	})
	t.Run("a registered target keeps the scheme's kind check", func(t *testing.T) {
		cm := protoBody(t, &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}})
		var de *DecodeError
		if err := testCodecClient.decode(cm, mediaProtobuf, &corev1.Pod{}); !errors.As(err, &de) {
			t.Fatalf("got %v, want a DecodeError", err)
		}
	})
	t.Run("a truncated body is a DecodeError", func(t *testing.T) {
		var de *DecodeError
		if err := testCodecClient.decode(body[:len(body)-3], mediaProtobuf, &metav1.PartialObjectMetadataList{}); !errors.As(err, &de) {
			t.Fatalf("got %v, want a DecodeError", err)
		}
	})
}

func partialList(n int) *metav1.PartialObjectMetadataList {
	pods := realisticPodList(n)
	out := &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"}, ListMeta: pods.ListMeta}
	for _, p := range pods.Items {
		out.Items = append(out.Items, metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}, ObjectMeta: p.ObjectMeta})
	}
	return out
}

func TestProtobufMetadataDecodesAsTheGenericDecoderDoes(t *testing.T) {
	body := protoBody(t, partialList(3))
	var got, want metav1.PartialObjectMetadataList
	if err := testCodecClient.decode(body, mediaProtobuf, &got); err != nil {
		t.Fatal(err)
	}
	if _, gvk, err := testCodecClient.proto.Decode(body, nil, &want); err != nil {
		t.Fatal(err)
	} else {
		want.GetObjectKind().SetGroupVersionKind(*gvk)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded\n%+v\nthe generic decoder decoded\n%+v", got, want)
	}
}

// BenchmarkDecodeProtobufMetadataList decodes the metadata of 500 realistic
// Pods from protobuf, through the generic decoder and through decode.
func BenchmarkDecodeProtobufMetadataList(b *testing.B) {
	var buf bytes.Buffer
	if err := testCodecClient.proto.Encode(partialList(500), &buf); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	for _, bc := range []struct {
		name   string
		decode func([]byte, runtime.Object) error
	}{
		{"generic", func(d []byte, o runtime.Object) error {
			_, _, err := testCodecClient.proto.Decode(d, nil, o)
			return err
		}},
		{"decode", func(d []byte, o runtime.Object) error { return testCodecClient.decode(d, mediaProtobuf, o) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var out metav1.PartialObjectMetadataList
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
