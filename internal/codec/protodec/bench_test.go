package protodec

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkPod decodes a realistic Pod with the generated method, with this
// decoder, and with this decoder sharing values (as an informer does).
func BenchmarkPod(b *testing.B) {
	raws := make([][]byte, 64)
	for i := range raws {
		raws[i] = mustMarshal(b, testPod(fmt.Sprintf("web-5d4f8b7c9d-%05d", i)))
	}
	b.Run("generated", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			var p corev1.Pod
			if err := p.Unmarshal(raws[i%len(raws)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	var d Decoder
	b.Run("plan", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			var p corev1.Pod
			if _, err := d.Unmarshal(raws[i%len(raws)], &p, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plan-shared", func(b *testing.B) {
		s := newMapSharer()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			var p corev1.Pod
			if _, err := d.Unmarshal(raws[i%len(raws)], &p, s); err != nil {
				b.Fatal(err)
			}
		}
	})
}
