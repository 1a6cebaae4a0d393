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

// The seeds' dynamic-client snippet in kubego: get a Deployment without
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
