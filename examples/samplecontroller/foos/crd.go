package foos

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
)

// Definition is the Foo CustomResourceDefinition, built from the Go type
// Foo: the schema is derived from its fields and their kube tags.
func Definition() crd.Definition {
	return crd.Definition{
		Group: Resource.Group,
		Kind:  "Foo",
		// Groups ending in k8s.io or kubernetes.io are reserved for the
		// Kubernetes project: the API server refuses a definition in one
		// without this annotation, a URL of the approval or a reason
		// starting with "unapproved".
		Annotations: map[string]string{"api-approved.kubernetes.io": "unapproved, an example outside the Kubernetes project"},
		Versions:    []crd.Version{{Name: Resource.Version, Type: crd.TypeOf[Foo](), Status: true}},
	}
}

// Install installs the Foo CustomResourceDefinition and returns once Foos
// are served. Installing it again updates it.
func Install(ctx context.Context, c *client.Client) error {
	def, err := crd.Build(Definition())
	if err != nil {
		return err
	}
	return crd.Install(ctx, dynamic.New(c.REST(), dynamic.Options{}), []*unstructured.Unstructured{def}, crd.InstallOptions{FieldManager: "foos"})
}
