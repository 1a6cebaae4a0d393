package sharding_test

import (
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/sharding"
)

// A replica of a sharded ConfigMap controller, in a Manager like any
// other controller: it joins the ring "cms", campaigns for the sharder,
// and its controller's workers run while it is a member (Member.Gate),
// over an informer that caches only the ConfigMaps assigned to it.
func Example() {
	ctx := context.Background()
	var cfg *rest.Config // from kubeconfig.Load
	pod, _ := os.Hostname()
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

	mgr, err := manager.New(manager.Options{Config: cfg, HealthAddr: ":8081", MetricsAddr: ":8080"})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := sharding.NewMember(mgr.Client(), sharding.MemberOptions{Ring: "cms", Identity: pod, Namespace: "kube-system"})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := sharding.NewSharder(mgr.Client(), sharding.SharderOptions{
		Ring: "cms", Identity: pod, Namespace: "kube-system",
		Resources: []sharding.Resource{{Resource: gvr, Kind: schema.GroupKind{Kind: "ConfigMap"}, Key: sharding.NamespaceKey}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The member's objects only: shard.kubego.io/cms=<pod>.
	if err := mgr.Declare(informer.Declare[*corev1.ConfigMap](m.Informer(informer.SharedOptions{}))); err != nil {
		fmt.Println(err)
		return
	}
	cms, err := informer.NewReader[*corev1.ConfigMap](mgr, informer.ReaderOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	reconciler := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		return controller.Result{}, nil // this replica's share of the work
	})
	guarded, err := m.Guard(reconciler, sharding.GuardOptions{Resource: gvr, Get: sharding.ReaderGet(cms)})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = mgr.NewController(controller.Options{
		Name:               "cms",
		Reconciler:         guarded,
		Sources:            []controller.Source{controller.For[*corev1.ConfigMap]{}},
		Gate:               m.Gate, // works while this replica is a member
		SkipLeaderElection: true,   // the ring is its election
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := mgr.Add(manager.RunnableFunc(s.Run)); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(mgr.Start(ctx))
}
