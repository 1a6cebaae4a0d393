package metadata

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/informer"
)

// ListerWatcher returns r as an informer ListerWatcher of
// *metav1.PartialObjectMetadata.
func (r *Resource) ListerWatcher() informer.ListerWatcher[*metav1.PartialObjectMetadata] {
	return lw{r}
}

type lw struct{ r *Resource }

func (l lw) List(ctx context.Context, opts metav1.ListOptions) (informer.ListResult[*metav1.PartialObjectMetadata], error) {
	lst, err := l.r.List(ctx, opts)
	if err != nil {
		return informer.ListResult[*metav1.PartialObjectMetadata]{}, err
	}
	items := make([]*metav1.PartialObjectMetadata, len(lst.Items))
	for i := range lst.Items {
		items[i] = &lst.Items[i]
	}
	return informer.ListResult[*metav1.PartialObjectMetadata]{Items: items, ResourceVersion: lst.GetResourceVersion(), Continue: lst.GetContinue()}, nil
}

func (l lw) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := l.r.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return w, nil
}
