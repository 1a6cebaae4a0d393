package crd_test

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/fake"
)

// Install a CustomResourceDefinition from YAML and use the new resource
// as soon as Install returns.
func ExampleInstall() {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	dc, err := dynamic.NewForConfig(srv.Config(), dynamic.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defs, err := crd.Parse([]byte(fooYAML)) // or crd.ReadFiles("config/crd")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := crd.Install(ctx, dc, defs, crd.InstallOptions{FieldManager: "installer"}); err != nil {
		fmt.Println(err)
		return
	}
	foos, err := dc.Resource(foosGVR).Namespace("default").List(ctx, metav1.ListOptions{})
	fmt.Println(len(foos.Items), "foos,", err)
	// Output: 0 foos, <nil>
}
