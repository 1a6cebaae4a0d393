// Command clientgo runs one scenario of the suite with k8s.io/client-go
// v0.37.2: SharedInformerFactory, metadatainformer and dynamicinformer with
// their defaults (JSON unless a variant says otherwise, managedFields
// kept, the library's own choice of streaming or paginated list).
package main

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	informerbench "github.com/kubego/kubego/bench/informer"
	"github.com/kubego/kubego/bench/internal/fixture"
)

func main() { informerbench.Main("client-go", driver{}) }

type driver struct{}

func config(path string) (*rest.Config, error) {
	return clientcmd.BuildConfigFromFlags("", path)
}

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func (driver) Sync(ctx context.Context, path string, src informerbench.Source, h informerbench.Handlers) (func() (any, int), error) {
	cfg, err := config(path)
	if err != nil {
		return nil, err
	}
	var inf cache.SharedIndexInformer
	var start func()
	dynamicFor := func(gvr schema.GroupVersionResource) error {
		dc, err := dynamic.NewForConfig(cfg)
		if err != nil {
			return err
		}
		f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dc, 0, src.Namespace, nil)
		inf = f.ForResource(gvr).Informer()
		start = func() { f.Start(ctx.Done()) }
		return nil
	}
	switch {
	case src.Kind == informerbench.Widgets:
		if err := dynamicFor(fixture.WidgetGVR); err != nil {
			return nil, err
		}
	case src.Kind == informerbench.Pods && src.Form == informerbench.Metadata:
		mc, err := metadata.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		f := metadatainformer.NewFilteredSharedInformerFactory(mc, 0, src.Namespace, nil)
		inf = f.ForResource(podsGVR).Informer()
		start = func() { f.Start(ctx.Done()) }
	case src.Kind == informerbench.Pods && src.Form == informerbench.Dynamic:
		if err := dynamicFor(podsGVR); err != nil {
			return nil, err
		}
	default:
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(src.Namespace))
		switch src.Kind {
		case informerbench.Pods:
			inf = f.Core().V1().Pods().Informer()
		case informerbench.ConfigMaps:
			inf = f.Core().V1().ConfigMaps().Informer()
		case informerbench.Secrets:
			inf = f.Core().V1().Secrets().Informer()
		case informerbench.EndpointSlices:
			inf = f.Discovery().V1().EndpointSlices().Informer()
		case informerbench.Events:
			inf = f.Core().V1().Events().Informer()
		default:
			return nil, fmt.Errorf("unknown kind %q", src.Kind)
		}
		start = func() { f.Start(ctx.Done()) }
	}
	var funcs cache.ResourceEventHandlerFuncs
	if h.OnAdd != nil {
		funcs.AddFunc = func(any) { h.OnAdd() }
	}
	if h.OnUpdate != nil {
		funcs.UpdateFunc = func(_, _ any) { h.OnUpdate() }
	}
	reg, err := inf.AddEventHandler(funcs)
	if err != nil {
		return nil, err
	}
	start()
	// The handler's registration is synced once it has been given every
	// initial object, after the informer's store is.
	if !waitSynced(ctx, inf.HasSynced) || !waitSynced(ctx, reg.HasSynced) {
		return nil, fmt.Errorf("informer did not sync")
	}
	return func() (any, int) {
		items := inf.GetStore().List()
		return items, len(items)
	}, nil
}

func (driver) WatchConfigMaps(ctx context.Context, path string, onUpdate func(rv string)) (func(context.Context, int, string) (string, error), error) {
	cfg, err := config(path)
	if err != nil {
		return nil, err
	}
	// The writer must go as fast as the server allows: lift the default
	// client-side limit of 5 QPS for writes.
	cfg.QPS, cfg.Burst = 1e6, 1e6
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(fixture.WatchNamespace))
	inf := f.Core().V1().ConfigMaps()
	if _, err := inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) { onUpdate(obj.(*corev1.ConfigMap).ResourceVersion) },
	}); err != nil {
		return nil, err
	}
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.Informer().HasSynced) {
		return nil, fmt.Errorf("informer did not sync")
	}
	cms := cs.CoreV1().ConfigMaps(fixture.WatchNamespace)
	local := make([]*corev1.ConfigMap, fixture.WatchConfigMaps)
	for i := range local {
		cm, err := inf.Lister().ConfigMaps(fixture.WatchNamespace).Get(fixture.ConfigMap(i).Name)
		if err != nil {
			return nil, err
		}
		local[i] = cm.DeepCopy()
	}
	return func(ctx context.Context, i int, seq string) (string, error) {
		cm := local[i]
		cm.Data["seq"] = seq
		out, err := cms.Update(ctx, cm, metav1.UpdateOptions{})
		if err != nil {
			return "", err
		}
		local[i] = out
		return out.ResourceVersion, nil
	}, nil
}

func (driver) ListPods(path string, protobuf bool) (func(context.Context, int64) (int, error), error) {
	cfg, err := config(path)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 1e6, 1e6
	// Both set explicitly: client-go v0.37's typed clients ask for
	// protobuf for built-in kinds whenever ContentType is unset, so
	// leaving it empty would measure protobuf under the JSON label.
	if protobuf {
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	} else {
		cfg.ContentType = "application/json"
		cfg.AcceptContentTypes = "application/json"
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	pods := cs.CoreV1().Pods(fixture.PodNamespace)
	return func(ctx context.Context, limit int64) (int, error) {
		l, err := pods.List(ctx, metav1.ListOptions{Limit: limit})
		if err != nil {
			return 0, err
		}
		return len(l.Items), nil
	}, nil
}

// waitSynced waits until synced reports true, checking every millisecond.
// cache.WaitForCacheSync checks every 100 ms, which would round each sync
// time up to the next tenth of a second (kubego's WaitForSync is told by
// a channel).
func waitSynced(ctx context.Context, synced func() bool) bool {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !synced() {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	return true
}
