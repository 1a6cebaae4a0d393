package fake

import (
	"maps"
	"slices"
	"testing"
)

func TestClusterScopedKeepsEveryRewrittenPath(t *testing.T) {
	// Map order decides which path is visited first, so try many times: a
	// rewritten namespaced path equals the all-namespaces one being dropped.
	for range 64 {
		paths := map[string]any{
			"/apis/g/v1/gears":                              map[string]any{"get": map[string]any{"operationId": "listG"}},
			"/apis/g/v1/namespaces/{namespace}/gears":       map[string]any{"get": map[string]any{"operationId": "listNamespacedG"}},
			"/apis/g/v1/namespaces/{namespace}/gears/{n}":   map[string]any{"get": map[string]any{"operationId": "readNamespacedG"}},
			"/apis/g/v1/watch/gears":                        map[string]any{},
			"/apis/g/v1/watch/namespaces/{namespace}/gears": map[string]any{},
		}
		clusterScoped(paths)
		got := slices.Sorted(maps.Keys(paths))
		want := []string{"/apis/g/v1/gears", "/apis/g/v1/gears/{n}", "/apis/g/v1/watch/gears"}
		if !slices.Equal(got, want) {
			t.Fatalf("paths = %q, want %q", got, want)
		}
		if id := paths["/apis/g/v1/gears"].(map[string]any)["get"].(map[string]any)["operationId"]; id != "listG" {
			t.Fatalf("list operationId = %v, want listG", id)
		}
	}
}
