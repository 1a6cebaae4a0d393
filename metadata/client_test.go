package metadata_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/metadata"
	"github.com/kubego/kubego/rest"
)

func server(t testing.TB, accepts *[]string) *metadata.Client {
	srv := newServer(accepts)
	t.Cleanup(srv.Close)
	rc, err := rest.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return metadata.New(rc, metadata.Options{})
}

func newServer(accepts *[]string) *httptest.Server {
	var mu sync.Mutex
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if accepts != nil {
			*accepts = append(*accepts, r.Method+" "+r.Header.Get("Accept"))
		}
		mu.Unlock()
		w.Header().Set("Content-Type", r.Header.Get("Accept"))
		if r.Method == "GET" && r.URL.Path == "/api/v1/namespaces/default/secrets" {
			_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadataList", "metadata": map[string]any{"resourceVersion": "5"},
				"items": []any{map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": map[string]any{"name": "token", "labels": map[string]any{"app": "web"}}}}})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": map[string]any{"name": "token"}})
	}))
}

var secrets = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}

func TestRequestsAskForPartialObjectMetadata(t *testing.T) {
	var accepts []string
	r := server(t, &accepts).Resource(secrets).Namespace("default")
	ctx := context.Background()
	if _, err := r.Get(ctx, "token", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	l, err := r.List(ctx, metav1.ListOptions{})
	if err != nil || len(l.Items) != 1 || l.Items[0].Labels["app"] != "web" {
		t.Fatal(l, err)
	}
	if _, err := r.Patch(ctx, "token", types.MergePatchType, []byte(`{"metadata":{"labels":{"a":"b"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Delete(ctx, "token", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"GET " + metadata.Accept, "GET " + metadata.AcceptList, "PATCH " + metadata.Accept, "DELETE " + metadata.Accept}
	if fmt.Sprint(accepts) != fmt.Sprint(want) {
		t.Fatalf("Accept headers\n%q\nwant\n%q", accepts, want)
	}
}

// List the metadata of secrets without moving their data.
func Example() {
	srv := newServer(nil)
	defer srv.Close()
	rc, err := rest.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	mc := metadata.New(rc, metadata.Options{})
	list, err := mc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}).Namespace("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range list.Items {
		fmt.Println(s.Name, s.Labels["app"])
	}
	// Output: token web
}
