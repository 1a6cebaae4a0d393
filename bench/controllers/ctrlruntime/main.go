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
// As for the kubego side, the runner builds one binary per workload (tag
// labeler_only or foo_only); without either tag the binary runs both.
//
//	KUBECONFIG=kc ./ctrlruntime -workload foo -mode restart -n 5000
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/kubego/kubego/bench/internal/ctlbench"
	"github.com/kubego/kubego/bench/internal/measure"
)

// workload is one controller this binary can run: configure adjusts the
// manager's options (its scheme is made, with client-go's kinds), setup
// adds the controller and returns the objects it watches.
type workload struct {
	configure func(*ctrl.Options, ctlbench.Flags) error
	setup     func(ctrl.Manager) ([]client.Object, error)
}

// workloads are the controllers linked into this binary, by name; each
// registers itself from a file of its own (labeler.go, fooreconciler.go).
var workloads = map[string]workload{}

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

	w, ok := workloads[f.Workload]
	if !ok {
		measure.Fail(fmt.Errorf("this binary was built without the %s workload", f.Workload))
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		measure.Fail(err)
	}
	opts := ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}}
	if err := w.configure(&opts, f); err != nil {
		measure.Fail(err)
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		measure.Fail(err)
	}
	watched, err := w.setup(mgr)
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
