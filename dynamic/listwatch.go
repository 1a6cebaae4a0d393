package dynamic

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/informer"
)

type runtimeObject = runtime.Object

// ListerWatcher returns r as an informer ListerWatcher of
// *unstructured.Unstructured.
func (r *Resource) ListerWatcher() informer.ListerWatcher[*unstructured.Unstructured] {
	return lw{r}
}

type lw struct{ r *Resource }

func (l lw) List(ctx context.Context, opts metav1.ListOptions) (informer.ListResult[*unstructured.Unstructured], error) {
	lst, err := l.r.List(ctx, opts)
	if err != nil {
		return informer.ListResult[*unstructured.Unstructured]{}, err
	}
	items := make([]*unstructured.Unstructured, len(lst.Items))
	for i := range lst.Items {
		items[i] = &lst.Items[i]
	}
	return informer.ListResult[*unstructured.Unstructured]{Items: items, ResourceVersion: lst.GetResourceVersion(), Continue: lst.GetContinue()}, nil
}

func (l lw) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := l.r.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return w, nil
}
