package rest

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// realisticPodList builds n Pods shaped like a Deployment's: two
// containers with eight env vars, ports, requests and limits, labels,
// annotations and one managedFields entry.
func realisticPodList(n int) *corev1.PodList {
	list := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, ListMeta: metav1.ListMeta{ResourceVersion: "1000"}}
	for i := range n {
		var containers []corev1.Container
		for c := range 2 {
			var env []corev1.EnvVar
			for e := range 8 {
				env = append(env, corev1.EnvVar{Name: fmt.Sprintf("VAR_%d", e), Value: fmt.Sprintf("value-%d-%d", i, e)})
			}
			containers = append(containers, corev1.Container{
				Name: fmt.Sprintf("c%d", c), Image: "registry.example/app:1.2.3", Env: env,
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("512Mi")},
				},
			})
		}
		list.Items = append(list.Items, corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("pod-%d", i), Namespace: "bench", UID: "0123e4567-e89b-12d3-a456-426614174000", ResourceVersion: fmt.Sprint(i + 1),
				Labels:      map[string]string{"app": "bench", "tier": "web", "shard": fmt.Sprint(i % 10)},
				Annotations: map[string]string{"example.com/a": "x", "example.com/b": "y"},
				ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "bench", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1",
					FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{}}}`)}}},
			},
			Spec:   corev1.PodSpec{Containers: containers, NodeName: "node-1"},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1"},
		})
	}
	return list
}

func benchmarkDecodePodList(b *testing.B, mt string) {
	list := realisticPodList(500)
	var buf bytes.Buffer
	var err error
	if mt == mediaJSON {
		err = testCodecClient.json.Encode(list, &buf)
	} else {
		err = testCodecClient.proto.Encode(list, &buf)
	}
	if err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var out corev1.PodList
		if err := testCodecClient.decode(data, mt, &out); err != nil {
			b.Fatal(err)
		}
		if len(out.Items) != 500 {
			b.Fatal("short list")
		}
	}
}

// BenchmarkDecodePodList500JSON and …Protobuf decode the same 500 realistic
// Pods from each wire format.
func BenchmarkDecodePodList500JSON(b *testing.B)     { benchmarkDecodePodList(b, mediaJSON) }
func BenchmarkDecodePodList500Protobuf(b *testing.B) { benchmarkDecodePodList(b, mediaProtobuf) }

// BenchmarkDoSmallGet measures the client's own cost per request: one
// small GET answered by a loopback server, sent, read and closed.
func BenchmarkDoSmallGet(b *testing.B) {
	body := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"a","resourceVersion":"1"}}`)
	srv := newServer(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", mediaJSON)
		w.Write(body)
	})
	c, _ := newTestClient(b, srv, nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Get().Namespace("a").Resource("configmaps").Name("x").DoRaw(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}
