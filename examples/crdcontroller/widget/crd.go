package widget

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
)

// CRD returns the CustomResourceDefinition of Widgets, built from the Go
// type Widget, with a status subresource (so status writes do not bump the
// generation).
func CRD() (*unstructured.Unstructured, error) {
	return crd.Build(crd.Definition{
		Group: Resource.Group, Kind: "Widget",
		Versions: []crd.Version{{Name: Resource.Version, Type: crd.TypeOf[Widget](), Status: true}},
	})
}

// Install applies the CRD (server-side, so running it twice is harmless)
// and waits until Widgets are served.
func Install(ctx context.Context, c *client.Client) error {
	def, err := CRD()
	if err != nil {
		return err
	}
	dc := dynamic.New(c.REST(), dynamic.Options{})
	if err := crd.Install(ctx, dc, []*unstructured.Unstructured{def}, crd.InstallOptions{FieldManager: "widget-installer"}); err != nil {
		return fmt.Errorf("installing the Widget CRD: %w", err)
	}
	return nil
}
