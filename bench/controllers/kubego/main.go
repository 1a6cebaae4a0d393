// Command kubego is the kubego side of the controller benchmarks (package
// bench/internal/ctlbench; the runner starts it): the labeler
// (examples/labeler) or the Foo controller (examples/samplecontroller),
// each as the example sets it up, in a manager.Manager with default
// options, on the cluster of $KUBECONFIG.
//
// The runner builds one binary per workload (tag labeler_only or
// foo_only), as a program running one of them would be built: the
// labeler's binary does not link the Foo controller's custom resource
// and CustomResourceDefinition code. Without either tag the binary runs
// both.
//
//	KUBECONFIG=kc ./kubego -workload foo -mode restart -n 5000
package main

import (
	"context"
	"log/slog"
	"os"

	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/kubego/kubego/bench/internal/ctlbench"
	"github.com/kubego/kubego/bench/internal/measure"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/manager"
)

// workload is one controller this binary can run: configure adjusts the
// manager's options before it is made (nil: none), setup adds the
// controller to it.
type workload struct {
	configure func(*manager.Options)
	setup     func(*manager.Manager, ctlbench.Flags) (*controller.Controller, error)
}

// workloads are the controllers linked into this binary, by name; each
// registers itself from a file of its own (labeler.go, foo.go).
var workloads = map[string]workload{}

func main() {
	f := ctlbench.ParseFlags()
	stopProfiles := measure.Profiles(f.CPUProf, f.MemProf)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

	cc, err := kubeconfig.Load(kubeconfig.Options{})
	if err != nil {
		measure.Fail(err)
	}
	cfg := cc.Config
	verbs := &ctlbench.Verbs{}
	cfg.WrapTransport = verbs.Wrap

	w, ok := workloads[f.Workload]
	if !ok {
		measure.Fail(fmt.Errorf("this binary was built without the %s workload", f.Workload))
	}
	opts := manager.Options{Config: cfg, Logger: log}
	if w.configure != nil {
		w.configure(&opts)
	}
	mgr, err := manager.New(opts)
	if err != nil {
		measure.Fail(err)
	}
	if os.Getenv("KUBEGO_DECODED") == "1" {
		// The runner's "kubego decoded" column: the cache representation
		// before compact became the default (the labeler's metadata is
		// declared decoded by its own option, in labeler.go).
		if err := mgr.Declare(informer.Declare[*appsv1.Deployment](informer.SharedOptions{Decoded: true})); err != nil {
			measure.Fail(err)
		}
	}
	ctl, err := w.setup(mgr, f)
	if err != nil {
		measure.Fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	go func() {
		if err := <-done; err != nil && ctx.Err() == nil {
			measure.Fail(err)
		}
	}()
	ctlbench.Run(f, ctlbench.Hooks{
		Impl:       "kubego",
		Reconciles: ctlbench.ReconcileCount(mgr.Registry()),
		Synced: func() bool {
			for _, ok := range ctl.SyncStates() {
				if !ok {
					return false
				}
			}
			return true
		},
		Verbs: verbs,
	}, stopProfiles, cancel)
}
