package client

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubego/kubego/rest"
)

func FuzzDecodeJSONList(f *testing.F) {
	f.Add([]byte(`{"metadata":{"resourceVersion":"1","continue":"x"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`))
	f.Add([]byte(`{"items":[1]}`))
	f.Add([]byte(`{"items":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		_, err := decodeJSONList(data, func() runtime.Object { return &corev1.ConfigMap{} }, func(o runtime.Object) {
			if _, ok := o.(*corev1.ConfigMap); !ok {
				t.Fatalf("yielded %T", o)
			}
			n++
		})
		var de *rest.DecodeError
		if err != nil && (!errors.As(err, &de) || n != 0) {
			t.Fatalf("error %v after %d items", err, n)
		}
	})
}
