package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/rest"
)

// demoServer stands in for a kube-apiserver in the examples.
func demoServer() (*httptest.Server, *rest.Config) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		var v any
		switch {
		case r.URL.Path == "/api/v1/namespaces/default/pods":
			v = map[string]any{"apiVersion": "v1", "kind": "PodList", "metadata": map[string]any{},
				"items": []any{
					map[string]any{"metadata": map[string]any{"name": "web-0", "namespace": "default"}},
					map[string]any{"metadata": map[string]any{"name": "web-1", "namespace": "default"}},
				}}
		case r.URL.Path == "/apis/example.com/v1/namespaces/default/widgets/w":
			v = map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "default"}, "spec": map[string]any{"size": 3}}
		default:
			var body map[string]any
			_ = json.NewDecoder(r.Body).Decode(&body)
			if body == nil {
				body = map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"}}
			}
			v = body
		}
		_ = json.NewEncoder(w).Encode(v)
	}))
	return srv, &rest.Config{Host: srv.URL, ContentType: rest.ContentTypeJSON}
}

// List the pods of a namespace and print their names.
func ExampleTyped() {
	srv, cfg := demoServer()
	defer srv.Close()
	ctx := context.Background()

	rc, err := rest.NewClient(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	c := client.New(rc, client.Options{})
	pods, err := client.Typed[*corev1.Pod](c).Namespace("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range pods.Items {
		fmt.Println(p.Name)
	}
	// Output:
	// web-0
	// web-1
}

// A custom resource through its own Go type: register it once, then use
// it like any built-in kind.
func ExampleRegister() {
	srv, cfg := demoServer()
	defer srv.Close()
	ctx := context.Background()

	reg := client.NewRegistry()
	client.Register[*Widget](reg, schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, true)
	rc, _ := rest.NewClient(cfg)
	c := client.New(rc, client.Options{Registry: reg})

	w, err := client.Typed[*Widget](c).Namespace("default").Get(ctx, "w", metav1.GetOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(w.Name, w.Spec.Size)
	// Output: w 3
}

// Server-side apply with a map: only the fields written here are owned
// by the field manager.
func ExampleResource_Apply() {
	srv, cfg := demoServer()
	defer srv.Close()
	ctx := context.Background()
	rc, _ := rest.NewClient(cfg)
	deployments := client.Typed[*appsv1.Deployment](client.New(rc, client.Options{})).Namespace("default")

	d, err := deployments.Apply(ctx, map[string]any{
		"metadata": map[string]any{"name": "web"},
		"spec":     map[string]any{"replicas": 3},
	}, client.ApplyOptions{FieldManager: "scaler"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Name, *d.Spec.Replicas)
	// Output: web 3
}

// Walking every page of a large list.
func ExampleResource_All() {
	srv, cfg := demoServer()
	defer srv.Close()
	ctx := context.Background()
	rc, _ := rest.NewClient(cfg)
	pods := client.Typed[*corev1.Pod](client.New(rc, client.Options{})).Namespace("default")

	for pod, err := range pods.All(ctx, client.AllOptions{List: metav1.ListOptions{Limit: 100}}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(pod.Name)
	}
	// Output:
	// web-0
	// web-1
}

// A read-modify-write that survives concurrent writers.
func ExampleRetryOnConflict() {
	srv, cfg := demoServer()
	defer srv.Close()
	ctx := context.Background()
	rc, _ := rest.NewClient(cfg)
	deployments := client.Typed[*appsv1.Deployment](client.New(rc, client.Options{})).Namespace("default")

	err := client.RetryOnConflict(ctx, client.DefaultBackoff(), func(ctx context.Context) error {
		d, err := deployments.Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Labels == nil {
			d.Labels = map[string]string{}
		}
		d.Labels["labeled"] = "true"
		_, err = deployments.Update(ctx, d, metav1.UpdateOptions{})
		return err
	})
	fmt.Println(err)
	// Output: <nil>
}

// Build a client straight from a rest.Config. Every write names the field
// manager given here, unless its options name another.
func ExampleNewForConfig() {
	srv, cfg := demoServer()
	defer srv.Close()
	c, err := client.NewForConfig(cfg, client.Options{FieldManager: "pod-lister"})
	if err != nil {
		fmt.Println(err)
		return
	}
	pods, err := client.Typed[*corev1.Pod](c).Namespace("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(pods.Items), "pods")
	// Output: 2 pods
}
