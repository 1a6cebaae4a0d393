package manager_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/record"
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
	cache, err := informer.NewReader[*appsv1.Deployment](mgr, informer.ReaderOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	deployments := client.Typed[*appsv1.Deployment](mgr.Client())
	labeled := make(chan string, 2)

	reconcile := func(ctx context.Context, req controller.Request) (controller.Result, error) {
		d, err := cache.Get(ctx, req.Key)
		if apierrors.IsNotFound(err) || err == nil && d.Labels["team"] != "" {
			return controller.Result{}, nil // gone, or done
		}
		if err != nil {
			return controller.Result{}, err
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
			controller.For[*appsv1.Deployment]{Predicates: []controller.Predicate{controller.LabelsChanged}},
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

// A reconciler records Events with the Manager's recorder; the Manager
// writes what is pending when it stops, after its controllers have
// drained, so no Event is lost and nothing is left to shut down by hand.
func ExampleManager_EventRecorder() {
	srv := fake.NewServer(fake.Options{}, deployment("shop", "web"))
	defer srv.Close()
	mgr, err := manager.New(manager.Options{Config: srv.Config()})
	if err != nil {
		fmt.Println(err)
		return
	}
	rec, err := mgr.EventRecorder("example.com/auditor")
	if err != nil {
		fmt.Println(err)
		return
	}
	cache, err := informer.NewReader[*appsv1.Deployment](mgr, informer.ReaderOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	seen := make(chan struct{}, 1)
	_, err = mgr.NewController(controller.Options{
		Name: "auditor",
		Reconciler: controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			if d, err := cache.Get(ctx, req.Key); err == nil {
				rec.Eventf(d, nil, record.Normal, "Audited", "Audit", "deployment %s audited", d.Name)
				select {
				case seen <- struct{}{}:
				default:
				}
			}
			return controller.Result{}, nil
		}),
		Sources: []controller.Source{controller.For[*appsv1.Deployment]{}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	<-seen
	cancel()
	fmt.Println("stopped:", <-done)

	events, err := client.Typed[*eventsv1.Event](mgr.Client()).Namespace("shop").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ev := range events.Items {
		fmt.Println(ev.Reason, ev.Regarding.Kind, ev.Regarding.Name, ev.ReportingController)
	}
	// Output:
	// stopped: <nil>
	// Audited Deployment web example.com/auditor
}

// A reconciler reads through a Reader made once at setup: one line per
// read, from the informer the controller's For source uses (one watch,
// one cache), with the options its type was declared with. A deleted
// object reads as NotFound; a live read is one call on the Manager's
// client.
func ExampleManager_Declare() {
	srv := fake.NewServer(fake.Options{}, deployment("shop", "web"), deployment("other", "web"))
	defer srv.Close()
	mgr, err := manager.New(manager.Options{Config: srv.Config()})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The Deployments of namespace shop only, for every source and reader.
	if err := mgr.Declare(informer.Declare[*appsv1.Deployment](informer.SharedOptions{Namespace: "shop"})); err != nil {
		fmt.Println(err)
		return
	}
	deployments, err := informer.NewReader[*appsv1.Deployment](mgr, informer.ReaderOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	replicas := make(chan string, 1)
	reconcile := func(ctx context.Context, req controller.Request) (controller.Result, error) {
		d, err := deployments.Get(ctx, req.Key)
		if apierrors.IsNotFound(err) {
			return controller.Result{}, nil // deleted
		}
		if err != nil {
			return controller.Result{}, err
		}
		replicas <- fmt.Sprintf("read %s/%s from the cache", d.Namespace, d.Name)
		return controller.Result{}, nil
	}
	_, err = mgr.NewController(controller.Options{
		Name:       "reader",
		Reconciler: controller.ReconcilerFunc(reconcile),
		Sources:    []controller.Source{controller.For[*appsv1.Deployment]{}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// A second declaration of the type is refused.
	err = mgr.Declare(informer.Declare[*appsv1.Deployment](informer.SharedOptions{}))
	fmt.Println("second declaration refused:", errors.Is(err, informer.ErrDeclared))

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	fmt.Println(<-replicas)

	// A live read, past the cache:
	live, err := client.Typed[*appsv1.Deployment](mgr.Client()).Namespace("shop").Get(ctx, "web", metav1.GetOptions{})
	fmt.Println("live:", live.Name, err)
	cancel()
	fmt.Println("stopped:", <-done)
	// Output:
	// second declaration refused: true
	// read shop/web from the cache
	// live: web <nil>
	// stopped: <nil>
}
