package testenv

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
)

// InstallCRDs installs the CustomResourceDefinitions of the given YAML or
// JSON files and directories (read with crd.ReadFiles) and returns once
// each is Established and served (crd.Install). Installing a definition
// again updates it. It returns the read error, the server's refusal, or a
// *crd.NotServedError.
func (cp *ControlPlane) InstallCRDs(ctx context.Context, paths ...string) error {
	defs, err := crd.ReadFiles(paths...)
	if err != nil {
		return fmt.Errorf("testenv: %w", err)
	}
	return cp.install(ctx, defs)
}

// InstallCRDObjects is InstallCRDs for definitions given as Go values:
// *unstructured.Unstructured, map[string]any, or the apiextensions-apiserver
// Go types (see crd.FromValue).
func (cp *ControlPlane) InstallCRDObjects(ctx context.Context, objs ...any) error {
	defs := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		u, err := crd.FromValue(o)
		if err != nil {
			return fmt.Errorf("testenv: %w", err)
		}
		defs = append(defs, u)
	}
	return cp.install(ctx, defs)
}

func (cp *ControlPlane) install(ctx context.Context, defs []*unstructured.Unstructured) error {
	dc, err := dynamic.NewForConfig(cp.Config(), dynamic.Options{})
	if err != nil {
		return fmt.Errorf("testenv: %w", err)
	}
	if err := crd.Install(ctx, dc, defs, crd.InstallOptions{FieldManager: "testenv"}); err != nil {
		return fmt.Errorf("testenv: %w", err)
	}
	return nil
}
