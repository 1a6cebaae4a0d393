package sharding_test

import (
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/sharding"
)

// A replica of a sharded ConfigMap controller: it joins the ring "cms",
// campaigns for the sharder, and while it is a member runs a controller
// whose informer caches only the ConfigMaps assigned to it.
func Example() {
	ctx := context.Background()
	var c *client.Client // from kubeconfig.Load and client.NewForConfig
	pod, _ := os.Hostname()
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

	m, err := sharding.NewMember(c, sharding.MemberOptions{Ring: "cms", Identity: pod, Namespace: "kube-system"})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := sharding.NewSharder(c, sharding.SharderOptions{
		Ring: "cms", Identity: pod, Namespace: "kube-system",
		Resources: []sharding.Resource{{Resource: gvr, Kind: schema.GroupKind{Kind: "ConfigMap"}, Key: sharding.NamespaceKey}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	go func() { _ = s.Run(ctx) }()

	reconciler := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		return controller.Result{}, nil // this replica's share of the work
	})
	err = m.Run(ctx, func(ctx, abort context.Context) error {
		f := informer.NewFactory(c, informer.FactoryOptions{OneInformerPerType: true})
		// The member's objects only: shard.kubego.io/cms=<pod>.
		if err := f.Declare(informer.Declare[*corev1.ConfigMap](m.Informer(informer.SharedOptions{}))); err != nil {
			return err
		}
		cms, err := informer.NewReader[*corev1.ConfigMap](f, informer.ReaderOptions{})
		if err != nil {
			return err
		}
		guarded, err := m.Guard(reconciler, sharding.GuardOptions{Resource: gvr, Get: sharding.ReaderGet(cms)})
		if err != nil {
			return err
		}
		ctrl, err := controller.New(f, controller.Options{
			Name:       "cms",
			Reconciler: guarded,
			Sources:    []controller.Source{controller.For[*corev1.ConfigMap]{}},
		})
		if err != nil {
			return err
		}
		f.Start(ctx)
		defer func() { _ = f.Wait() }()
		return ctrl.StartAbortable(ctx, abort)
	})
	fmt.Println(err)
}
