package clientset_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/client/clientset"
	"github.com/kubego/kubego/rest"
)

// The classic typed-clientset program, in kubego: list the pods of a
// namespace and print their names.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "v1", "kind": "PodList", "metadata": map[string]any{},
			"items": []any{map[string]any{"metadata": map[string]any{"name": "nginx-1"}}, map[string]any{"metadata": map[string]any{"name": "nginx-2"}}}})
	}))
	defer srv.Close()

	cs, err := clientset.NewForConfig(&rest.Config{Host: srv.URL, ContentType: rest.ContentTypeJSON}, client.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	pods, err := cs.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range pods.Items {
		fmt.Println(p.Name)
	}
	// Output:
	// nginx-1
	// nginx-2
}
