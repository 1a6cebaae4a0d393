package client_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/scheme"
)

// realisticPods returns n pods shaped like the DESIGN's "realistic Pod".
func realisticPods(n int) *corev1.PodList {
	l := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	for i := range n {
		c := corev1.Container{Name: "app", Image: "registry.example/app:1.2.3",
			Ports: []corev1.ContainerPort{{ContainerPort: 8080, Name: "http"}},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("512Mi")},
			}}
		for j := range 8 {
			c.Env = append(c.Env, corev1.EnvVar{Name: fmt.Sprintf("VAR_%d", j), Value: "value"})
		}
		side := c
		side.Name = "sidecar"
		l.Items = append(l.Items, corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%05d", i), Namespace: "bench", UID: "uid",
				Labels:      map[string]string{"app": "web", "tier": "front", "track": "stable"},
				Annotations: map[string]string{"a": "1", "b": "2"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{c, side}},
		})
	}
	return l
}

func benchmarkList(b *testing.B, proto bool) {
	var body bytes.Buffer
	var ct string
	l := realisticPods(500)
	s := scheme.Default()
	if proto {
		ct = "application/vnd.kubernetes.protobuf"
		if err := protobuf.NewSerializer(s, s).Encode(l, &body); err != nil {
			b.Fatal(err)
		}
	} else {
		ct = "application/json"
		if err := json.NewSerializerWithOptions(json.DefaultMetaFactory, s, s, json.SerializerOptions{}).Encode(l, &body); err != nil {
			b.Fatal(err)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		_, _ = w.Write(body.Bytes())
	}))
	defer srv.Close()
	rc, err := rest.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		b.Fatal(err)
	}
	pods := client.Typed[*corev1.Pod](client.New(rc, client.Options{})).Namespace("bench")
	ctx := context.Background()
	b.SetBytes(int64(body.Len()))
	b.ReportAllocs()
	for b.Loop() {
		l, err := pods.List(ctx, metav1.ListOptions{})
		if err != nil || len(l.Items) != 500 {
			b.Fatal(err)
		}
	}
}

func BenchmarkList500PodsProtobuf(b *testing.B) { benchmarkList(b, true) }
func BenchmarkList500PodsJSON(b *testing.B)     { benchmarkList(b, false) }

func BenchmarkFor(b *testing.B) {
	rc, err := rest.NewClient(&rest.Config{Host: "https://example.invalid"})
	if err != nil {
		b.Fatal(err)
	}
	c := client.New(rc, client.Options{})
	b.ReportAllocs()
	for b.Loop() {
		_ = client.Typed[*corev1.Pod](c).Namespace("ns")
	}
}

var _ runtime.Object = (*corev1.Pod)(nil)
