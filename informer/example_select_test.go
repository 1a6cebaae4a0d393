package informer_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/informer"
)

// nodeBackend serves three Pods on two nodes and, like kube-apiserver,
// filters LIST results by the field selector spec.nodeName.
var nodeBackend = informer.BackendFunc(func(ctx context.Context, t informer.Target) (informer.ListerWatcher[informer.Object], error) {
	all := []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1", ResourceVersion: "1"}, Spec: corev1.PodSpec{NodeName: "node-a"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-2", ResourceVersion: "1"}, Spec: corev1.PodSpec{NodeName: "node-b"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db-1", ResourceVersion: "1"}, Spec: corev1.PodSpec{NodeName: "node-a"}},
	}
	return informer.Erase[*corev1.Pod](informer.Funcs[*corev1.Pod]{
		ListFunc: func(_ context.Context, opts metav1.ListOptions) (informer.ListResult[*corev1.Pod], error) {
			sel, err := fields.ParseSelector(opts.FieldSelector)
			if err != nil {
				return informer.ListResult[*corev1.Pod]{}, apierrors.NewBadRequest(err.Error())
			}
			var items []*corev1.Pod
			for _, p := range all {
				if sel.Matches(fields.Set{"spec.nodeName": p.Spec.NodeName}) {
					items = append(items, p)
				}
			}
			return informer.ListResult[*corev1.Pod]{Items: items, ResourceVersion: "1"}, nil
		},
		WatchFunc: func(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			if opts.SendInitialEvents != nil {
				return nil, apierrors.NewBadRequest("sendInitialEvents is not supported")
			}
			return watch.NewFake(), nil
		},
	}), nil
})

// A custom index: find the cached Pods of a node without scanning the
// cache. The index is registered with the informer's options, so every
// user of the shared informer can read it.
func ExampleAcquire_index() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	f := informer.NewFactory(nodeBackend, informer.FactoryOptions{})
	pods, err := informer.Acquire[*corev1.Pod](f, informer.SharedOptions{
		Indexers: map[string]func(informer.Object) []string{
			"byNode": func(o informer.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} },
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	f.Start(ctx)
	if err := f.WaitForSync(ctx); err != nil {
		fmt.Println(err)
		return
	}
	onA, err := pods.Lister().ByIndex("byNode", "node-a")
	if err != nil {
		fmt.Println(err) // ErrUnknownIndex for an index that was never registered
		return
	}
	for _, p := range onA {
		fmt.Println(p.Name)
	}
	// Unordered output:
	// web-1
	// db-1
}

// A field-selected informer caches only what the server selects: here the
// Pods of one node, as a node agent would. Different selectors make
// different informers (and watches); equal ones share one.
func ExampleAcquire_fieldSelector() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	f := informer.NewFactory(nodeBackend, informer.FactoryOptions{})
	onB, err := informer.Acquire[*corev1.Pod](f, informer.SharedOptions{FieldSelector: "spec.nodeName=node-b"})
	if err != nil {
		fmt.Println(err)
		return
	}
	f.Start(ctx)
	if err := f.WaitForSync(ctx); err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range onB.Lister().List(nil) {
		fmt.Println(p.Name, "on", p.Spec.NodeName)
	}
	again, err := informer.Acquire[*corev1.Pod](f, informer.SharedOptions{FieldSelector: "spec.nodeName=node-b"})
	fmt.Println("same informer for the same selector:", again == onB, err)
	// Output:
	// web-2 on node-b
	// same informer for the same selector: true <nil>
}
