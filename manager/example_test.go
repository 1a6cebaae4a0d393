package manager_test

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/manager"
)

// A Manager running a controller that labels every Deployment. The
// Manager builds the shared client and cache from a rest.Config;
// NewController adds the controller in one call. The Reconciler reads from
// the shared cache and writes with a patch; the loop around it (queue,
// retries, sync, shutdown) is the controller's.
func ExampleNew() {
	srv := fake.NewServer(fake.Options{}, deployment("shop", "web"), deployment("shop", "db"))
	defer srv.Close()

	mgr, err := manager.New(manager.Options{Config: srv.Config()})
	if err != nil {
		fmt.Println(err)
		return
	}
	cache := informer.Shared[*appsv1.Deployment](mgr.Factory(), informer.SharedOptions{}).Lister()
	deployments := client.Typed[*appsv1.Deployment](mgr.Client())
	labeled := make(chan string, 2)

	reconcile := func(ctx context.Context, req controller.Request) (controller.Result, error) {
		d, ok := cache.GetKey(req.Key)
		if !ok || d.Labels["team"] != "" {
			return controller.Result{}, nil // gone, or done
		}
		patch := []byte(`{"metadata":{"labels":{"team":"shop"}}}`)
		if _, err := deployments.Namespace(req.Namespace).Patch(ctx, req.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return controller.Result{}, err // retried with backoff
		}
		labeled <- req.String()
		return controller.Result{}, nil
	}
	_, err = mgr.NewController(controller.Options{
		Name:       "team-labeler",
		Reconciler: controller.ReconcilerFunc(reconcile),
		Sources: []controller.Source{
			controller.For[*appsv1.Deployment](controller.SourceOptions{
				Predicates: []controller.Predicate{controller.LabelsChanged},
			}),
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	seen := map[string]bool{}
	for len(seen) < 2 {
		seen[<-labeled] = true
	}
	cancel()
	fmt.Println(seen["shop/web"], seen["shop/db"], <-done)
	// Output: true true <nil>
}
