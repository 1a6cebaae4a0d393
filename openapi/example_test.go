package openapi_test

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/openapi"
	"github.com/kubego/kubego/rest"
)

func ExampleClient_Explain() {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	rc, err := rest.NewClient(srv.Config())
	if err != nil {
		panic(err)
	}
	c := openapi.New(rc, openapi.Options{})
	f, err := c.Explain(context.Background(), appsv1.SchemeGroupVersion.WithKind("Deployment"), "spec.template.spec.containers")
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Path, f.Type, f.Required)
	// Output: spec.template.spec.containers []Container true
}
