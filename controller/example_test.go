package controller_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/rest"
)

// exampleFactory serves objs from an in-memory API server and returns an
// informer factory on a client of it, and a function that closes the
// server.
func exampleFactory(objs ...runtime.Object) (*informer.Factory, func()) {
	srv := fake.NewServer(fake.Options{}, objs...)
	rc, err := rest.NewClient(srv.Config())
	if err != nil {
		panic(err)
	}
	return informer.NewFactory(client.New(rc, client.Options{}), informer.FactoryOptions{}), srv.Close
}

// requests is a Reconciler that reports each Request it has not seen
// before on its channel.
type requests struct {
	mu   sync.Mutex
	seen map[controller.Request]bool
	new  chan controller.Request
}

func newRequests() *requests {
	return &requests{seen: map[controller.Request]bool{}, new: make(chan controller.Request, 16)}
}

func (r *requests) Reconcile(_ context.Context, req controller.Request) (controller.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.seen[req] {
		r.seen[req] = true
		r.new <- req
	}
	return controller.Result{}, nil
}

// runUntil starts c, waits for n distinct Requests (30s at most), stops c
// and prints them in order.
func runUntil(c *controller.Controller, rec *requests, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	var got []string
	for len(got) < n && ctx.Err() == nil {
		select {
		case req := <-rec.new:
			got = append(got, req.String())
		case <-ctx.Done():
		}
	}
	cancel()
	if err := <-done; err != nil {
		fmt.Println(err)
	}
	slices.Sort(got)
	for _, s := range got {
		fmt.Println("reconciled", s)
	}
}

func deployment(ns, name string, labels map[string]string) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}}
}

// A Controller without a manager: New on any informer factory, with a For
// source. Each Deployment is reconciled once its cache has synced.
func ExampleNew() {
	factory, stop := exampleFactory(deployment("shop", "web", nil), deployment("shop", "db", nil))
	defer stop()

	rec := newRequests()
	c, err := controller.New(factory, controller.Options{
		Name:       "deployments",
		Reconciler: rec,
		Sources:    []controller.Source{controller.For[*appsv1.Deployment]{}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	runUntil(c, rec, 2)
	// Output:
	// reconciled shop/db
	// reconciled shop/web
}

// Owns enqueues the controlling owner of each object: here the Deployment
// of each ReplicaSet. The owner kind comes from the For source; a
// ReplicaSet without a controller reference enqueues nothing.
func ExampleOwns() {
	owned := func(name, owner string) *appsv1.ReplicaSet {
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}}
		if owner != "" {
			rs.OwnerReferences = []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "Deployment", Name: owner, UID: "uid-" + types.UID(owner), Controller: new(true),
			}}
		}
		return rs
	}
	factory, stop := exampleFactory(owned("web-5d8f", "web"), owned("db-7c9b", "db"), owned("orphan", ""))
	defer stop()

	rec := newRequests()
	c, err := controller.New(factory, controller.Options{
		Name:       "deployments",
		Reconciler: rec,
		Sources: []controller.Source{
			controller.For[*appsv1.Deployment]{},
			controller.Owns[*appsv1.ReplicaSet]{},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	runUntil(c, rec, 2)
	// Output:
	// reconciled shop/db
	// reconciled shop/web
}

// Watches maps the events of any type to the Requests it chooses: here a
// ConfigMap labeled app=<name> enqueues the Deployment of that name.
func ExampleWatches() {
	config := func(name, app string) *corev1.ConfigMap {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}}
		if app != "" {
			cm.Labels = map[string]string{"app": app}
		}
		return cm
	}
	factory, stop := exampleFactory(config("web-config", "web"), config("db-config", "db"), config("unrelated", ""))
	defer stop()

	toDeployment := func(_ context.Context, cm *corev1.ConfigMap) []controller.Request {
		app := cm.Labels["app"]
		if app == "" {
			return nil
		}
		return []controller.Request{{Key: informer.Key{Namespace: cm.Namespace, Name: app}}}
	}
	rec := newRequests()
	c, err := controller.New(factory, controller.Options{
		Name:       "deployments",
		Reconciler: rec,
		Sources:    []controller.Source{controller.Watches[*corev1.ConfigMap]{Map: toDeployment}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	runUntil(c, rec, 2)
	// Output:
	// reconciled shop/db
	// reconciled shop/web
}

// ForMetadata watches and caches only the metadata of a resource, for a
// reconciler that needs labels, annotations or owners and not the spec.
// The reconciler reads the same shared metadata informer through a
// Reader made with informer.NewMetadataReader on the same factory.
func ExampleForMetadata() {
	factory, stop := exampleFactory(
		deployment("shop", "web", map[string]string{"team": "storefront"}),
		deployment("shop", "db", map[string]string{"team": "data"}),
	)
	defer stop()

	gvr := appsv1.SchemeGroupVersion.WithResource("deployments")
	cache, err := informer.NewMetadataReader(factory, gvr, informer.ReaderOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	teams := make(chan string, 16)
	reconcile := func(ctx context.Context, req controller.Request) (controller.Result, error) {
		m, err := cache.Get(ctx, req.Key) // a *metav1.PartialObjectMetadata
		if err != nil {
			return controller.Result{}, err
		}
		teams <- req.String() + " team=" + m.Labels["team"]
		return controller.Result{}, nil
	}
	c, err := controller.New(factory, controller.Options{
		Name:       "teams",
		Reconciler: controller.ReconcilerFunc(reconcile),
		Sources:    []controller.Source{controller.ForMetadata{Resource: gvr}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	var got []string
	for len(got) < 2 && ctx.Err() == nil {
		select {
		case t := <-teams:
			got = append(got, t)
		case <-ctx.Done():
		}
	}
	cancel()
	slices.Sort(got)
	fmt.Println(got, <-done)
	// Output: [shop/db team=data shop/web team=storefront] <nil>
}

// Channel turns events from outside the cluster into Requests: here a
// message naming a Deployment. The source stops reading when the channel
// is closed or the controller stops.
func ExampleChannel() {
	factory, stop := exampleFactory()
	defer stop()

	type message struct{ namespace, deployment string }
	messages := make(chan message, 2)
	rec := newRequests()
	c, err := controller.New(factory, controller.Options{
		Name:       "messages",
		Reconciler: rec,
		Sources: []controller.Source{
			controller.Channel(messages, func(_ context.Context, m message) []controller.Request {
				return []controller.Request{{Key: informer.Key{Namespace: m.namespace, Name: m.deployment}}}
			}),
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	messages <- message{"shop", "web"}
	messages <- message{"shop", "db"}
	close(messages)
	runUntil(c, rec, 2)
	// Output:
	// reconciled shop/db
	// reconciled shop/web
}

// With PriorityQueue a controller restarting over many objects reconciles
// a change made meanwhile before the backlog of its initial list.
func ExampleOptions_priorityQueue() {
	factory, stop := exampleFactory(deployment("shop", "web", nil))
	defer stop()

	rec := newRequests()
	c, err := controller.New(factory, controller.Options{
		Name:          "deployments",
		Reconciler:    rec,
		PriorityQueue: true,
		Sources:       []controller.Source{controller.For[*appsv1.Deployment]{}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	runUntil(c, rec, 1)
	// Output:
	// reconciled shop/web
}
