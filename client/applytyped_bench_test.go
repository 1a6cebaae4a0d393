package client_test

import (
	"encoding/json"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/apply"
	"github.com/kubego/kubego/client"
)

// benchDeployment sets a Deployment of two containers with ports,
// resources and environment, as a controller would own it.
func benchDeployment(d *appsv1.Deployment) {
	replicas := int32(3)
	d.Name, d.Namespace = "web", "bench"
	d.Labels = map[string]string{"app": "web", "tier": "front"}
	d.Spec.Replicas = &replicas
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	d.Spec.Template.Labels = map[string]string{"app": "web", "tier": "front"}
	var cs []corev1.Container
	for _, name := range []string{"app", "sidecar"} {
		c := corev1.Container{Name: name, Image: "registry.example/" + name + ":1",
			Ports: []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP, Name: "http"}},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")},
			}}
		for j := range 8 {
			c.Env = append(c.Env, corev1.EnvVar{Name: fmt.Sprintf("VAR_%d", j), Value: "value"})
		}
		cs = append(cs, c)
	}
	d.Spec.Template.Spec.Containers = cs
}

// benchDeploymentMap is benchDeployment as the map an author would write.
func benchDeploymentMap() map[string]any {
	var cs []any
	for _, name := range []string{"app", "sidecar"} {
		var env []any
		for j := range 8 {
			env = append(env, map[string]any{"name": fmt.Sprintf("VAR_%d", j), "value": "value"})
		}
		cs = append(cs, map[string]any{
			"name": name, "image": "registry.example/" + name + ":1",
			"ports": []any{map[string]any{"containerPort": 8080, "protocol": "TCP", "name": "http"}},
			"resources": map[string]any{
				"requests": map[string]any{"cpu": "100m", "memory": "128Mi"},
				"limits":   map[string]any{"memory": "512Mi"},
			},
			"env": env,
		})
	}
	return map[string]any{
		"metadata": map[string]any{"name": "web", "namespace": "bench", "labels": map[string]any{"app": "web", "tier": "front"}},
		"spec": map[string]any{
			"replicas": 3,
			"selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "web", "tier": "front"}},
				"spec":     map[string]any{"containers": cs},
			},
		},
	}
}

// BenchmarkApplyBody compares building the body of an apply client-side:
// from a set function on the Go type (Configure, then what Apply does to
// any configuration) and from the equivalent map.
func BenchmarkApplyBody(b *testing.B) {
	ty, err := apply.TypeOf[*appsv1.Deployment]()
	if err != nil {
		b.Fatal(err)
	}
	body := func(b *testing.B, config any) {
		m, err := client.ApplyMap(config)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("typed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			cfg, err := ty.Configure(benchDeployment)
			if err != nil {
				b.Fatal(err)
			}
			body(b, cfg)
		}
	})
	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			body(b, benchDeploymentMap())
		}
	})
	b.Run("extract", func(b *testing.B) {
		b.ReportAllocs()
		live := &appsv1.Deployment{}
		benchDeployment(live)
		live.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationApply, FieldsType: "FieldsV1",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{"f:app":{},"f:tier":{}}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{},"f:tier":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:env":{"k:{\"name\":\"VAR_0\"}":{".":{},"f:name":{},"f:value":{}}},"f:image":{},"f:name":{}}}}}}}`)}}}
		for b.Loop() {
			if _, err := ty.Extract(live, "m"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("type", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := apply.TypeOf[*appsv1.Deployment](); err != nil {
				b.Fatal(err)
			}
		}
	})
}
