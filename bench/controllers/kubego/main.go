// Command kubego is the kubego side of the controller benchmarks (package
// bench/internal/ctlbench; the runner starts it): the labeler
// (examples/labeler) or the Foo controller (examples/samplecontroller),
// each as the example sets it up, in a manager.Manager with default
// options, on the cluster of $KUBECONFIG.
//
//	KUBECONFIG=kc ./kubego -workload foo -mode restart -n 5000
package main

import (
	"context"
	"log/slog"
	"os"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/kubego/kubego/bench/internal/ctlbench"
	"github.com/kubego/kubego/bench/internal/measure"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/examples/labeler/labeler"
	"github.com/kubego/kubego/examples/samplecontroller/foos"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/manager"
)

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

	opts := manager.Options{Config: cfg, Logger: log}
	if f.Workload == "foo" {
		reg := client.NewRegistry()
		foos.Register(reg)
		opts.Client = client.Options{Registry: reg}
	}
	mgr, err := manager.New(opts)
	if err != nil {
		measure.Fail(err)
	}
	if os.Getenv("KUBEGO_DECODED") == "1" {
		// The runner's "kubego decoded" column: the cache representation
		// before compact became the default (the labeler's metadata is
		// declared decoded by its own option, below).
		if err := mgr.Declare(informer.Declare[*appsv1.Deployment](informer.SharedOptions{Decoded: true})); err != nil {
			measure.Fail(err)
		}
	}
	var ctl *controller.Controller
	if f.Workload == "labeler" {
		ctl, err = labeler.Setup(mgr, labeler.Options{Namespace: f.Namespace, Decoded: os.Getenv("KUBEGO_DECODED") == "1"})
	} else {
		ctl, err = foos.Setup(mgr)
	}
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
