// Command kubego runs the store scenario with a kubego informer
// (informer.New over a fake watch, library defaults but the streaming
// initial list, which a fake watch cannot serve).
package main

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	storebench "github.com/kubego/kubego/bench/store"
	"github.com/kubego/kubego/informer"
)

func main() { storebench.Main("kubego", driver{}) }

type driver struct{}

func (driver) Start(ctx context.Context, pods []*corev1.Pod, w watch.Interface, onUpdate func()) (storebench.Readers, error) {
	lw := informer.Funcs[*corev1.Pod]{
		ListFunc: func(context.Context, metav1.ListOptions) (informer.ListResult[*corev1.Pod], error) {
			return informer.ListResult[*corev1.Pod]{Items: pods, ResourceVersion: "1"}, nil
		},
		WatchFunc: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return w, nil },
	}
	inf := informer.New[*corev1.Pod](lw, informer.Options[*corev1.Pod]{
		Reflector: informer.ReflectorOptions{DisableStreaming: true},
	})
	go inf.Run(ctx)
	if err := inf.WaitForSync(ctx); err != nil {
		return storebench.Readers{}, err
	}
	if _, err := inf.AddEventHandler(informer.HandlerFuncs[*corev1.Pod]{
		UpdateFunc: func(_, _ *corev1.Pod) { onUpdate() },
	}, informer.HandlerOptions{}); err != nil {
		return storebench.Readers{}, err
	}
	lister := inf.Lister()
	return storebench.Readers{
		List: func() int { return len(lister.List(nil)) },
		Namespace: func(ns string) int {
			n := 0
			for range lister.Namespace(ns).All(nil) {
				n++
			}
			return n
		},
	}, nil
}
