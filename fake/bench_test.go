package fake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/rest"
)

func benchPod(i int) *corev1.Pod {
	var env []corev1.EnvVar
	for j := range 8 {
		env = append(env, corev1.EnvVar{Name: fmt.Sprintf("VAR_%d", j), Value: "value"})
	}
	c := corev1.Container{
		Name: "app", Image: "registry.example/app:1", Env: env,
		Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")},
		},
	}
	side := c
	side.Name = "sidecar"
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "bench", Name: fmt.Sprintf("pod-%05d", i),
			Labels:      map[string]string{"app": "bench", "tier": "web", "idx": fmt.Sprint(i % 10)},
			Annotations: map[string]string{"a": "1", "b": "2"},
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{c, side}},
	}
}

// BenchmarkList10k lists 10,000 realistic pods through the REST client.
func BenchmarkList10k(b *testing.B) {
	objs := make([]runtime.Object, 10000)
	for i := range objs {
		objs[i] = benchPod(i)
	}
	srv := fake.NewServer(fake.Options{}, objs...)
	defer srv.Close()
	for _, ct := range []rest.ContentType{rest.ContentTypeJSON, rest.ContentTypeProtobuf} {
		b.Run(ct.String(), func(b *testing.B) {
			cfg := srv.Config()
			cfg.ContentType = ct
			c, err := rest.NewClient(cfg)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for b.Loop() {
				var list corev1.PodList
				if err := c.Get().Namespace("bench").Resource("pods").Do(ctx).Into(&list); err != nil {
					b.Fatal(err)
				}
				if len(list.Items) != 10000 {
					b.Fatalf("%d items", len(list.Items))
				}
			}
		})
	}
}

// BenchmarkWatchFanout measures one write delivered to 100 watchers.
func BenchmarkWatchFanout(b *testing.B) {
	const watchers = 100
	srv := fake.NewServer(fake.Options{HistoryWindow: 1 << 20})
	defer srv.Close()
	cfg := srv.Config()
	cfg.ContentType = rest.ContentTypeJSON
	c, err := rest.NewClient(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rv := srv.ResourceVersion()
	var wg sync.WaitGroup
	got := make(chan struct{}, watchers*1024)
	for range watchers {
		w, err := c.Get().Namespace("bench").Resource("configmaps").Param("resourceVersion", fmt.Sprint(rv)).
			Watch(ctx, func() runtime.Object { return &corev1.ConfigMap{} })
		if err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range w.ResultChan() {
				got <- struct{}{}
			}
		}()
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := srv.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("c%d", i)}, Data: map[string]string{"k": "v"}}); err != nil {
			b.Fatal(err)
		}
		for range watchers {
			<-got
		}
	}
	b.StopTimer()
	cancel()
	wg.Wait()
}

// BenchmarkAdd seeds realistic pods (each write computes managedFields).
func BenchmarkAdd(b *testing.B) {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	for i := 0; b.Loop(); i++ {
		if err := srv.Add(benchPod(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenAPI measures what serving a captured document costs: the
// entry is inflated on each request and nothing is kept.
func BenchmarkOpenAPI(b *testing.B) {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	for _, path := range []string{"/openapi/v2", "/openapi/v3", "/openapi/v3/api/v1", "/openapi/v3/apis/apps/v1"} {
		b.Run(path, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d", path, rec.Code)
				}
			}
		})
	}
}

// BenchmarkCreate creates realistic pods through the REST client, the
// write path a controller's create takes (decoding, defaulting, managed
// fields, storage, encoding of the answer).
func BenchmarkCreate(b *testing.B) {
	for _, ct := range []rest.ContentType{rest.ContentTypeJSON, rest.ContentTypeProtobuf} {
		b.Run(ct.String(), func(b *testing.B) {
			srv := fake.NewServer(fake.Options{}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}})
			defer srv.Close()
			cfg := srv.Config()
			cfg.ContentType = ct
			c, err := rest.NewClient(cfg)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			for i := 0; b.Loop(); i++ {
				var out corev1.Pod
				if err := c.Post().Namespace("bench").Resource("pods").Body(benchPod(i)).Do(ctx).Into(&out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkApply applies objects through server-side apply (PATCH
// application/apply-patch+yaml): a realistic pod, and a custom resource of
// a definition whose schema has map and set lists. Each iteration applies
// a new object, then applies it again changed.
func BenchmarkApply(b *testing.B) {
	pod := func(i, v int) []byte {
		p := benchPod(i)
		p.Labels["v"] = fmt.Sprint(v)
		p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
		data, err := json.Marshal(p)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	widget := func(i, v int) []byte {
		data, err := json.Marshal(map[string]any{
			"apiVersion": "bench.example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"namespace": "bench", "name": fmt.Sprintf("w-%05d", i), "labels": map[string]any{"v": fmt.Sprint(v)}},
			"spec": map[string]any{
				"tags":  []any{"a", "b", fmt.Sprint(v)},
				"ports": []any{map[string]any{"port": 80, "protocol": "TCP"}, map[string]any{"port": 443, "protocol": "TCP", "name": "https"}},
			},
		})
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	for _, tc := range []struct {
		name string
		path string
		body func(i, v int) []byte
	}{
		{"pod", "/api/v1/namespaces/bench/pods/", pod},
		{"custom", "/apis/bench.example.com/v1/namespaces/bench/widgets/", widget},
	} {
		b.Run(tc.name, func(b *testing.B) {
			srv := fake.NewServer(fake.Options{}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}, benchCRD())
			defer srv.Close()
			apply := func(name string, body []byte) {
				req := httptest.NewRequest(http.MethodPatch, tc.path+name+"?fieldManager=bench", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/apply-patch+yaml")
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK && rec.Code != http.StatusCreated {
					b.Fatalf("apply %s: %d %s", name, rec.Code, rec.Body)
				}
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				var u map[string]any
				first := tc.body(i, 0)
				if err := json.Unmarshal(first, &u); err != nil {
					b.Fatal(err)
				}
				name := u["metadata"].(map[string]any)["name"].(string)
				apply(name, first)
				apply(name, tc.body(i, 1))
			}
		})
	}
}

// benchCRD defines the custom resource BenchmarkApply applies.
func benchCRD() *unstructured.Unstructured {
	obj := func(props map[string]any) map[string]any {
		return map[string]any{"type": "object", "properties": props}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.bench.example.com"},
		"spec": map[string]any{
			"group": "bench.example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": obj(map[string]any{
					"spec": obj(map[string]any{
						"tags": map[string]any{"type": "array", "x-kubernetes-list-type": "set", "items": map[string]any{"type": "string"}},
						"ports": map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"port", "protocol"},
							"items": obj(map[string]any{"port": map[string]any{"type": "integer"}, "protocol": map[string]any{"type": "string"}, "name": map[string]any{"type": "string"}})},
					}),
				})},
			}},
		},
	}}
}
