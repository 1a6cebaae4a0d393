package gizmo

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/dynamic"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// CRDName is the name of the CustomResourceDefinition.
const CRDName = "gizmos." + Group

// CRD returns the CustomResourceDefinition of Gizmos: v1 and v2 served,
// v2 stored. Its conversion is set apart, once the webhook's URL is known
// (testenv.ControlPlane.InstallConversionWebhook in development).
func CRD() *unstructured.Unstructured {
	str := map[string]any{"type": "string"}
	version := func(name string, storage bool, spec map[string]any) map[string]any {
		return map[string]any{
			"name": name, "served": true, "storage": storage,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"spec": map[string]any{"type": "object", "properties": spec}},
			}},
		}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": CRDName},
		"spec": map[string]any{
			"group": Group,
			"scope": "Namespaced",
			"names": map[string]any{"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo", "listKind": "GizmoList"},
			"versions": []any{
				version("v1", false, map[string]any{"size": map[string]any{"type": "integer"}, "color": str}),
				version("v2", true, map[string]any{"length": str, "color": str}),
			},
		},
	}}
}

// Install applies the CRD (server-side, so running it twice is harmless)
// and waits until both versions are served.
func Install(ctx context.Context, c *client.Client) error {
	dc := dynamic.New(c.REST(), dynamic.Options{})
	if _, err := dc.Resource(crdResource).Apply(ctx, CRD(), dynamic.ApplyOptions{FieldManager: "gizmo-installer", Force: true}); err != nil {
		return fmt.Errorf("installing the Gizmo CRD: %w", err)
	}
	for _, gvr := range []schema.GroupVersionResource{V1, V2} {
		for {
			_, err := dc.Resource(gvr).Namespace("default").List(ctx, metav1.ListOptions{Limit: 1})
			if err == nil {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("waiting for %s to be served: %w (last error: %w)", gvr, ctx.Err(), err)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return nil
}
