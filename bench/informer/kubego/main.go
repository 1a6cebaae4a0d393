// Command kubego runs one scenario of the suite with kubego: informers
// through informer.NewFactory on a client.Client (library defaults:
// protobuf, managedFields dropped, streaming initial list).
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	informerbench "github.com/kubego/kubego/bench/informer"
	"github.com/kubego/kubego/bench/internal/fixture"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/client/clientset"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/rest"
)

func main() { informerbench.Main("kubego", driver{}) }

// decoded selects the representation of the cache before compact became
// the default (informer.SharedOptions.Decoded): KUBEGO_DECODED=1 in the
// environment, the runner's "kubego decoded" column.
func decoded() bool { return os.Getenv("KUBEGO_DECODED") == "1" }

type driver struct{}

func config(path string) (*rest.Config, error) {
	cc, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	if err != nil {
		return nil, err
	}
	return cc.Config, nil
}

func newClient(path string) (*client.Client, error) {
	cfg, err := config(path)
	if err != nil {
		return nil, err
	}
	rc, err := rest.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return client.New(rc, client.Options{}), nil
}

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func run[T informer.Object](ctx context.Context, f *informer.Factory, inf *informer.Informer[T], h informerbench.Handlers) (func() (any, int), error) {
	var funcs informer.HandlerFuncs[T]
	if h.OnAdd != nil {
		funcs.AddFunc = func(T, bool) { h.OnAdd() }
	}
	if h.OnUpdate != nil {
		funcs.UpdateFunc = func(_, _ T) { h.OnUpdate() }
	}
	reg, err := inf.AddEventHandler(funcs, informer.HandlerOptions{})
	if err != nil {
		return nil, err
	}
	f.Start(ctx)
	if err := f.WaitForSync(ctx); err != nil {
		return nil, err
	}
	// Synced once the handler has been given every initial object too, as
	// the client-go driver waits: a heap measured while the handler still
	// receives the initial adds counts what those deliveries hold.
	if !waitSynced(ctx, reg.HasSynced) {
		return nil, fmt.Errorf("handler did not sync")
	}
	// The informer itself keeps the cache reachable. Listing it, as the
	// client-go driver does, would cost client-go a slice of pointers but a
	// compact cache a decoded copy of every object, held while the heap
	// is measured.
	return func() (any, int) { return inf, inf.Lister().Len() }, nil
}

func (driver) Sync(ctx context.Context, path string, src informerbench.Source, h informerbench.Handlers) (func() (any, int), error) {
	c, err := newClient(path)
	if err != nil {
		return nil, err
	}
	f := informer.NewFactory(c, informer.FactoryOptions{})
	opts := informer.SharedOptions{Namespace: src.Namespace, Decoded: decoded()}
	switch {
	case src.Kind == informerbench.Widgets:
		return run(ctx, f, mustAcquire(informer.AcquireResource(f, fixture.WidgetGVR, opts)), h)
	case src.Kind != informerbench.Pods:
		switch src.Kind {
		case informerbench.ConfigMaps:
			return run(ctx, f, mustAcquire(informer.Acquire[*corev1.ConfigMap](f, opts)), h)
		case informerbench.Secrets:
			return run(ctx, f, mustAcquire(informer.Acquire[*corev1.Secret](f, opts)), h)
		case informerbench.EndpointSlices:
			return run(ctx, f, mustAcquire(informer.Acquire[*discoveryv1.EndpointSlice](f, opts)), h)
		case informerbench.Events:
			return run(ctx, f, mustAcquire(informer.Acquire[*corev1.Event](f, opts)), h)
		}
		return nil, fmt.Errorf("unknown kind %q", src.Kind)
	case src.Form == informerbench.Metadata:
		return run(ctx, f, mustAcquire(informer.AcquireMetadata(f, podsGVR, opts)), h)
	case src.Form == informerbench.Dynamic:
		return run(ctx, f, mustAcquire(informer.AcquireResource(f, podsGVR, opts)), h)
	default:
		return run(ctx, f, mustAcquire(informer.Acquire[*corev1.Pod](f, opts)), h)
	}
}

func (driver) WatchConfigMaps(ctx context.Context, path string, onUpdate func(rv string)) (func(context.Context, int, string) (string, error), error) {
	c, err := newClient(path)
	if err != nil {
		return nil, err
	}
	f := informer.NewFactory(c, informer.FactoryOptions{})
	inf := mustAcquire(informer.Acquire[*corev1.ConfigMap](f, informer.SharedOptions{Namespace: fixture.WatchNamespace, Decoded: decoded()}))
	if _, err := inf.AddEventHandler(informer.HandlerFuncs[*corev1.ConfigMap]{
		UpdateFunc: func(_, cm *corev1.ConfigMap) { onUpdate(cm.ResourceVersion) },
	}, informer.HandlerOptions{}); err != nil {
		return nil, err
	}
	f.Start(ctx)
	if err := f.WaitForSync(ctx); err != nil {
		return nil, err
	}
	cms := client.Typed[*corev1.ConfigMap](c).Namespace(fixture.WatchNamespace)
	local := make([]*corev1.ConfigMap, fixture.WatchConfigMaps)
	for i := range local {
		cm, ok := inf.Lister().Namespace(fixture.WatchNamespace).Get(fixture.ConfigMap(i).Name)
		if !ok {
			return nil, &missingError{fixture.ConfigMap(i).Name}
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

type missingError struct{ name string }

func (e *missingError) Error() string { return "configmap " + e.name + " not in the cache" }

func (driver) ListPods(path string, protobuf bool) (func(context.Context, int64) (int, error), error) {
	cfg, err := config(path)
	if err != nil {
		return nil, err
	}
	cfg.ContentType = rest.ContentTypeJSON
	if protobuf {
		cfg.ContentType = rest.ContentTypeProtobuf
	}
	cs, err := clientset.NewForConfig(cfg, client.Options{})
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

// mustAcquire returns the informer of a factory that cannot refuse a
// request (no OneInformerPerType), failing loudly if it ever did.
func mustAcquire[T informer.Object](inf *informer.Informer[T], err error) *informer.Informer[T] {
	if err != nil {
		panic(err)
	}
	return inf
}

// waitSynced waits until synced reports true, checking every millisecond.
func waitSynced(ctx context.Context, synced func() bool) bool {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for !synced() {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
	return true
}
