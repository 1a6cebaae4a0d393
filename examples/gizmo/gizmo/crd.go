package gizmo

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// CRDName is the name of the CustomResourceDefinition.
const CRDName = "gizmos." + Group

// CRD returns the CustomResourceDefinition of Gizmos, built from the Go
// types GizmoV1 and Gizmo: v1 and v2 served, v2 stored. Its conversion is
// set apart, once the webhook's URL is known
// (testenv.ControlPlane.InstallConversionWebhook in development).
func CRD() (*unstructured.Unstructured, error) {
	return crd.Build(crd.Definition{
		Group: Group, Kind: "Gizmo",
		Versions: []crd.Version{
			{Name: "v1", Type: crd.TypeOf[GizmoV1]()},
			{Name: "v2", Type: crd.TypeOf[Gizmo](), Storage: true},
		},
	})
}

// Install applies the CRD (server-side, so running it twice is harmless)
// and waits until both versions are served.
func Install(ctx context.Context, c *client.Client) error {
	def, err := CRD()
	if err != nil {
		return err
	}
	dc := dynamic.New(c.REST(), dynamic.Options{})
	if _, err := dc.Resource(crdResource).Apply(ctx, def, dynamic.ApplyOptions{FieldManager: "gizmo-installer", Force: true}); err != nil {
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
