package dynamic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/rest"
)

// The classic dynamic-client program in kubego: get a Deployment without
// its Go type and read fields out of the unstructured object.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "web", "namespace": "default"},
			"spec":     map[string]any{"replicas": 3, "template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "web", "image": "nginx:1.27"}}}}}})
	}))
	defer srv.Close()
	rc, err := rest.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		fmt.Println(err)
		return
	}

	dc := dynamic.New(rc, dynamic.Options{})
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	d, err := dc.Resource(gvr).Namespace("default").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	replicas, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	fmt.Println(d.GetName(), replicas, containers[0].(map[string]any)["image"])
	// Output: web 3 nginx:1.27
}

// A multi-tenant tool's view: list a custom resource with no Go type
// for it, reading names and labels through the metav1.Object methods.
func ExampleResource_List() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRuleList", "metadata": map[string]any{},
			"items": []any{map[string]any{"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule",
				"metadata": map[string]any{"name": "slo-latency", "namespace": "tenant-a", "labels": map[string]any{"team": "a"}}}}})
	}))
	defer srv.Close()

	dc, err := dynamic.NewForConfig(&rest.Config{Host: srv.URL}, dynamic.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	gvr := schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "prometheusrules"}
	list, err := dc.Resource(gvr).Namespace("tenant-a").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, item := range list.Items {
		fmt.Println(item.GetName(), item.GetLabels()["team"])
	}
	// Output: slo-latency a
}
