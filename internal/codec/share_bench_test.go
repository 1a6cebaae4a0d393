package codec

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/internal/codec/dedup"
	"github.com/kubego/kubego/internal/codec/protodec"
)

// benchPod returns Pod i; with unique set, no label, annotation, image,
// env name or resource request of it recurs in any other Pod.
func benchPod(i int, unique bool) *corev1.Pod {
	u := func(s string) string {
		if unique {
			return fmt.Sprintf("%s-%d", s, i)
		}
		return s
	}
	env := make([]corev1.EnvVar, 8)
	for j := range env {
		env[j] = corev1.EnvVar{Name: u(fmt.Sprintf("SETTING_%d", j)), Value: fmt.Sprintf("value-%d-of-pod-%d", j, i)}
	}
	cpu, mem := "100m", "128Mi"
	if unique {
		cpu, mem = fmt.Sprintf("%dm", 100+i), fmt.Sprintf("%dMi", 128+i)
	}
	res := corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("pod-%06d", i), Namespace: "bench", ResourceVersion: "12345",
			Labels:      map[string]string{u("app"): u("web"), u("tier"): u("api")},
			Annotations: map[string]string{u("example.com/owner"): u("team")},
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "app", Image: u("registry.example.com/shop/app:v1.2.3"), Env: env, Resources: res,
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
		}}},
	}
}

// BenchmarkShareUnique decodes Pods by plan without and with a sharing
// table, on Pods whose values all recur and on Pods where none does: the
// table's cost when it has nothing to share is the difference on unique.
func BenchmarkShareUnique(b *testing.B) {
	for _, unique := range []bool{false, true} {
		raws := make([][]byte, 4096)
		for i := range raws {
			raw, err := benchPod(i, unique).Marshal()
			if err != nil {
				b.Fatal(err)
			}
			raws[i] = raw
		}
		name := map[bool]string{false: "recurring", true: "unique"}[unique]
		var d protodec.Decoder
		b.Run(name+"/plain", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				var p corev1.Pod
				if _, err := d.Unmarshal(raws[i%len(raws)], &p, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/shared", func(b *testing.B) {
			t := dedup.New(dedup.Options{})
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				var p corev1.Pod
				if _, err := Unmarshal(&d, raws[i%len(raws)], &p, t); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
