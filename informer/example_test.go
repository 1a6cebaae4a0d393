package informer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/informer"
)

// exampleBackend stands in for the client package's Backend: it serves two
// Pods and a watch that stays quiet, and rejects streaming lists.
var exampleBackend = informer.BackendFunc(func(ctx context.Context, t informer.Target) (informer.ListerWatcher[informer.Object], error) {
	pod := func(name, app string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: t.Namespace, Name: name, ResourceVersion: "1", Labels: map[string]string{"app": app}}}
	}
	return informer.Erase[*corev1.Pod](informer.Funcs[*corev1.Pod]{
		ListFunc: func(context.Context, metav1.ListOptions) (informer.ListResult[*corev1.Pod], error) {
			return informer.ListResult[*corev1.Pod]{Items: []*corev1.Pod{pod("web-1", "web"), pod("db-1", "db")}, ResourceVersion: "1"}, nil
		},
		WatchFunc: func(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			if opts.SendInitialEvents != nil {
				// Like a server without the WatchList feature: the informer
				// falls back to a paginated LIST at once.
				return nil, apierrors.NewBadRequest("sendInitialEvents is not supported")
			}
			return watch.NewFake(), nil
		},
	}), nil
})

func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	f := informer.NewFactory(exampleBackend, informer.FactoryOptions{})
	pods, err := informer.Acquire[*corev1.Pod](f, informer.SharedOptions{Namespace: "shop"})
	if err != nil {
		fmt.Println(err)
		return
	}

	added := make(chan string, 10)
	pods.AddEventHandler(informer.HandlerFuncs[*corev1.Pod]{
		// Handlers should only enqueue keys; here we just report them.
		AddFunc: func(p *corev1.Pod, initial bool) { added <- informer.KeyOf(p).String() },
	}, informer.HandlerOptions{})

	f.Start(ctx)
	if err := f.WaitForSync(ctx); err != nil {
		fmt.Println("not synced:", err) // names each informer and the cause (403, 404, ...)
		return
	}

	got := []string{<-added, <-added}
	slices.Sort(got)
	fmt.Println("handler saw:", got)

	web := pods.Lister().Namespace("shop").List(labels.SelectorFromSet(labels.Set{"app": "web"}))
	fmt.Println("web pods:", len(web), web[0].Name)
	if p, ok := pods.Lister().Namespace("shop").Get("db-1"); ok {
		fmt.Println("got", p.Name, "at resourceVersion", p.ResourceVersion)
	}
	// Output:
	// handler saw: [shop/db-1 shop/web-1]
	// web pods: 1 web-1
	// got db-1 at resourceVersion 1
}

// A Reader is a reconciler's view of one type: made once, read with a
// context. Its first read waits for the cache to sync; a missing object
// reads as NotFound, as from the API server. The type's informer options
// are declared once, where the factory is made (a Manager takes them in
// its Options); readers and controller sources refer to the type.
func ExampleNewReader() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := informer.NewFactory(exampleBackend, informer.FactoryOptions{OneInformerPerType: true})
	err := f.Declare(informer.Declare[*corev1.Pod](informer.SharedOptions{
		Namespace: "shop",
		Indexers: map[string]func(informer.Object) []string{
			"app": func(o informer.Object) []string { return []string{o.GetLabels()["app"]} },
		},
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	pods, err := informer.NewReader[*corev1.Pod](f, informer.ReaderOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	f.Start(ctx)

	p, err := pods.Get(ctx, informer.Key{Namespace: "shop", Name: "web-1"})
	fmt.Println("get:", p.Name, err)
	_, err = pods.Get(ctx, informer.Key{Namespace: "shop", Name: "gone"})
	fmt.Println("missing is NotFound:", apierrors.IsNotFound(err))
	web, err := pods.ByIndex(ctx, "app", "web")
	fmt.Println("by index:", len(web), err)

	// The type's options are given once: another namespace is refused.
	_, err = informer.Acquire[*corev1.Pod](f, informer.SharedOptions{Namespace: "other"})
	var conflict *informer.OptionsConflictError
	fmt.Println("conflict on", errors.As(err, &conflict) && conflict.Field == "Namespace")
	// Output:
	// get: web-1 <nil>
	// missing is NotFound: true
	// by index: 1 <nil>
	// conflict on true
}
