// Command ctrlruntime is the controller-runtime v0.25 side of the
// controller benchmarks (package bench/internal/ctlbench; the runner
// starts it): the labeler and the Foo controller written as
// controller-runtime's documentation and kubebuilder teach them
// (ctrl.NewControllerManagedBy(mgr).For(...).Owns(...).Complete(r), a
// Reconciler that reads through the manager's cached client and writes
// with Patch), with default options, on the cluster of $KUBECONFIG.
//
// Each side keeps its defaults: one worker per controller (the kubego
// labeler's own default is 4), a cache of whole objects, no client-side
// throttling (controller-runtime's GetConfig disables it), the priority
// queue. Only
// what would make the comparison unequal is set: the metrics server is off
// (kubego's manager serves none unless asked), the labeler's cache is
// limited to its namespace (as the kubego labeler's informer is), and the
// logger writes warnings to stderr as the kubego side's does.
//
//	KUBECONFIG=kc ./ctrlruntime -workload foo -mode restart -n 5000
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/kubego/kubego/bench/internal/ctlbench"
	"github.com/kubego/kubego/bench/internal/measure"
)

func main() {
	f := ctlbench.ParseFlags()
	stopProfiles := measure.Profiles(f.CPUProf, f.MemProf)
	ctrl.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))

	cfg, err := ctrl.GetConfig()
	if err != nil {
		measure.Fail(err)
	}
	verbs := &ctlbench.Verbs{}
	cfg.WrapTransport = verbs.Wrap

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		measure.Fail(err)
	}
	if err := addFoo(scheme); err != nil {
		measure.Fail(err)
	}
	opts := ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}}
	if f.Workload == "labeler" {
		opts.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{f.Namespace: {}}}
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		measure.Fail(err)
	}
	var watched []client.Object
	if f.Workload == "labeler" {
		err = (&LabelerReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr)
		watched = []client.Object{&appsv1.Deployment{}}
	} else {
		err = (&FooReconciler{
			Client:   mgr.GetClient(),
			Scheme:   mgr.GetScheme(),
			Recorder: mgr.GetEventRecorder("samplecontroller.k8s.io/foos"),
		}).SetupWithManager(mgr)
		watched = []client.Object{&Foo{}, &appsv1.Deployment{}}
	}
	if err != nil {
		measure.Fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// The controller's sources take these informers from the cache when it
	// starts; taking them here (the same ones) lets WaitForCacheSync below
	// see them whatever the order.
	for _, o := range watched {
		if _, err := mgr.GetCache().GetInformer(ctx, o); err != nil {
			measure.Fail(err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	go func() {
		if err := <-done; err != nil && ctx.Err() == nil {
			measure.Fail(err)
		}
	}()
	synced := make(chan struct{})
	go func() {
		if mgr.GetCache().WaitForCacheSync(ctx) {
			close(synced)
		}
	}()
	ctlbench.Run(f, ctlbench.Hooks{
		Impl:       "controller-runtime",
		Reconciles: ctlbench.ReconcileCount(ctrlmetrics.Registry),
		Synced: func() bool {
			select {
			case <-synced:
				return true
			default:
				return false
			}
		},
		Verbs: verbs,
	}, stopProfiles, cancel)
}
