package crd_test

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/fake"
)

type Tank struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              TankSpec `json:"spec"`
}

type TankSpec struct {
	Litres int32  `json:"litres" kube:"minimum=1;maximum=1000"`
	Fluid  string `json:"fluid,omitempty" kube:"enum=water|oil;default=water"`
}

// Build a definition from the Go type of each version, install it, and
// have the server check and default objects by the derived schema.
func ExampleBuild() {
	def, err := crd.Build(crd.Definition{
		Group: "tanks.example.com", Kind: "Tank",
		Versions: []crd.Version{{Name: "v1", Type: crd.TypeOf[Tank]()}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dc, err := dynamic.NewForConfig(srv.Config(), dynamic.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := crd.Install(ctx, dc, []*unstructured.Unstructured{def}, crd.InstallOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	tank := func(name string, litres int64) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "tanks.example.com/v1", "kind": "Tank",
			"metadata": map[string]any{"name": name}, "spec": map[string]any{"litres": litres},
		}}
	}
	gvr := schema.GroupVersionResource{Group: "tanks.example.com", Version: "v1", Resource: "tanks"}
	created, err := dc.Resource(gvr).Namespace("default").Create(ctx, tank("small", 10), metav1.CreateOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(created.Object["spec"])
	_, err = dc.Resource(gvr).Namespace("default").Create(ctx, tank("huge", 5000), metav1.CreateOptions{})
	fmt.Println(err)
	// Output:
	// map[fluid:water litres:10]
	// Tank.tanks.example.com "huge" is invalid: spec.litres: Invalid value: 5000: spec.litres in body should be less than or equal to 1000
}
