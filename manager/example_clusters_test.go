package manager_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/manager"
)

// One controller labelling the Deployments of two clusters. The Manager
// runs on a hub (its own cluster, not watched here: SkipHostCluster) and
// holds the clusters added to it (here by hand; fleet.Kubeconfig and
// fleet.Secrets add them from kubeconfigs). Each Request names its
// cluster; the reconciler reads and writes that cluster through
// mgr.Cluster.
func ExampleManager_AddCluster() {
	hub := fake.NewServer(fake.Options{})
	east := fake.NewServer(fake.Options{}, deployment("shop", "web"))
	west := fake.NewServer(fake.Options{}, deployment("shop", "web"), deployment("shop", "db"))
	for _, s := range []*fake.Server{hub, east, west} {
		defer s.Close()
	}

	mgr, err := manager.New(manager.Options{Config: hub.Config()})
	if err != nil {
		fmt.Println(err)
		return
	}
	labeled := make(chan string, 3)
	reconcile := func(ctx context.Context, req controller.Request) (controller.Result, error) {
		cl, err := mgr.Cluster(req.Cluster)
		if err != nil {
			return controller.Result{}, controller.TerminalError(err) // removed meanwhile
		}
		deployments, err := informer.NewReader[*appsv1.Deployment](cl, informer.ReaderOptions{})
		if err != nil {
			return controller.Result{}, err
		}
		d, err := deployments.Get(ctx, req.Key)
		if apierrors.IsNotFound(err) || (err == nil && d.Labels["cluster"] != "") {
			return controller.Result{}, nil // gone, or done
		}
		if err != nil {
			return controller.Result{}, err
		}
		patch := []byte(`{"metadata":{"labels":{"cluster":"` + req.Cluster + `"}}}`)
		_, err = client.Typed[*appsv1.Deployment](cl.Client()).Namespace(req.Namespace).Patch(ctx, req.Name, types.MergePatchType, patch, metav1.PatchOptions{})
		if err == nil {
			labeled <- req.String()
		}
		return controller.Result{}, err
	}
	_, err = mgr.NewController(controller.Options{
		Name:            "cluster-labeler",
		Reconciler:      controller.ReconcilerFunc(reconcile),
		MultiCluster:    true,
		SkipHostCluster: true,
		Sources:         []controller.Source{controller.For[*appsv1.Deployment]{}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := mgr.AddCluster("east", east.Config()); err != nil {
		fmt.Println(err)
		return
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	// Clusters may come and go while the Manager runs.
	if _, err := mgr.AddCluster("west", west.Config()); err != nil {
		fmt.Println(err)
		return
	}
	var seen []string
	for len(seen) < 3 {
		seen = append(seen, <-labeled)
	}
	slices.Sort(seen)
	fmt.Println(seen)
	fmt.Println(mgr.RemoveCluster("east"), mgr.ClusterNames())
	cancel()
	fmt.Println(<-done)
	// Output:
	// [shop/db@west shop/web@east shop/web@west]
	// <nil> [west]
	// <nil>
}
