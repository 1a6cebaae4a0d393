package widget

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
)

// CRD returns the CustomResourceDefinition of Widgets, with a status
// subresource (so status writes do not bump the generation).
func CRD() *unstructured.Unstructured {
	obj := map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": Resource.Resource + "." + Resource.Group},
		"spec": map[string]any{
			"group": Resource.Group,
			"scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{
				"name": Resource.Version, "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type":       "object",
					"properties": map[string]any{"spec": obj, "status": obj},
				}},
			}},
		},
	}}
}

// Install applies the CRD (server-side, so running it twice is harmless)
// and waits until Widgets are served.
func Install(ctx context.Context, c *client.Client) error {
	dc := dynamic.New(c.REST(), dynamic.Options{})
	if err := crd.Install(ctx, dc, []*unstructured.Unstructured{CRD()}, crd.InstallOptions{FieldManager: "widget-installer"}); err != nil {
		return fmt.Errorf("installing the Widget CRD: %w", err)
	}
	return nil
}
