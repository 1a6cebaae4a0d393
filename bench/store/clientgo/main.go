// Command clientgo runs the store scenario with a client-go v0.37.2 shared
// index informer over a fake watch, set up as client-go's own
// BenchmarkSharedIndexInformer sets it up (namespace index, ListWatch).
package main

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	storebench "github.com/kubego/kubego/bench/store"
)

func main() { storebench.Main("client-go", driver{}) }

type driver struct{}

// noWatchList tells the reflector that this ListWatch cannot serve the
// streaming initial list (WatchListClient is on by default in v0.37), as
// kubego's side sets DisableStreaming.
type noWatchList struct{ *cache.ListWatch }

func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

func (driver) Start(ctx context.Context, pods []*corev1.Pod, w watch.Interface, onUpdate func()) (storebench.Readers, error) {
	items := make([]corev1.Pod, len(pods))
	for i, p := range pods {
		items[i] = *p
	}
	inf := cache.NewSharedIndexInformerWithOptions(noWatchList{&cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: items}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return w, nil },
	}}, &corev1.Pod{}, cache.SharedIndexInformerOptions{
		Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
	})
	go inf.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return storebench.Readers{}, ctx.Err()
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, _ any) { onUpdate() },
	}); err != nil {
		return storebench.Readers{}, err
	}
	indexer := inf.GetIndexer()
	return storebench.Readers{
		List: func() int { return len(indexer.List()) },
		Namespace: func(ns string) int {
			n := 0
			if err := cache.ListAllByNamespace(indexer, ns, labels.Everything(), func(any) { n++ }); err != nil {
				return -1
			}
			return n
		},
	}, nil
}
