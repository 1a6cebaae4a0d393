package protodec

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FuzzUnmarshal holds the decoder to the generated one on any input: the
// same inputs fail, and the others decode to the same Pod (and, with a
// Sharer, to a semantically equal one: Quantities' strings are filled).
func FuzzUnmarshal(f *testing.F) {
	f.Add(mustMarshal(f, testPod("web-1")))
	f.Add(mustMarshal(f, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}}}))
	f.Add([]byte{0x0a, 0x02, 0x0a, 0x00})
	var d Decoder
	f.Fuzz(func(t *testing.T, b []byte) {
		var want corev1.Pod
		wantErr := want.Unmarshal(b)
		for _, s := range []Sharer{nil, newMapSharer(), Own{}} {
			var got corev1.Pod
			ok, err := d.Unmarshal(b, &got, s)
			if !ok {
				t.Fatal("Pod not handled")
			}
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("sharing %v: error %v, generated decoder's %v", s != nil, err, wantErr)
			}
			if err != nil {
				continue
			}
			if s == nil && !reflect.DeepEqual(&got, &want) {
				t.Fatalf("differs from the generated decoder:\n got %+v\nwant %+v", &got, &want)
			}
			if !equality.Semantic.DeepEqual(&got, &want) {
				t.Fatalf("shared decode differs:\n got %+v\nwant %+v", &got, &want)
			}
		}
	})
}
