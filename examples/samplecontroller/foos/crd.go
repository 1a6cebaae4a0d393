package foos

import (
	"context"
	_ "embed"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
)

//go:embed crd.yaml
var crdYAML []byte

// Install installs the Foo CustomResourceDefinition (crd.yaml) and returns
// once Foos are served. Installing it again updates it.
func Install(ctx context.Context, c *client.Client) error {
	defs, err := crd.Parse(crdYAML)
	if err != nil {
		return err
	}
	return crd.Install(ctx, dynamic.New(c.REST(), dynamic.Options{}), defs, crd.InstallOptions{FieldManager: "foos"})
}
