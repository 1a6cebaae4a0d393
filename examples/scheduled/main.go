// Command scheduled runs the scheduled controller (package scheduled)
// against the cluster of a kubeconfig: a ConfigMap labelled
// scheduled.kubego.io=true and annotated scheduled.kubego.io/every=1h gets
// the annotation scheduled.kubego.io/last-run each hour after its
// creation.
//
//	go run ./examples/scheduled -kubeconfig ~/.kube/config
//	kubectl create configmap nightly
//	kubectl label configmap nightly scheduled.kubego.io=true
//	kubectl annotate configmap nightly scheduled.kubego.io/every=2m
//
// Its test (package scheduled) runs days of the schedule in fake time.
package main

import (
	"context"
	"flag"
	"log/slog"
	"os"

	"github.com/kubego/kubego/examples/scheduled/scheduled"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/manager"
)

func main() {
	path := flag.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := manager.SignalContext(context.Background())
	defer stop()
	if err := run(ctx, log, *path); err != nil {
		log.Error("scheduled failed", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, log *slog.Logger, path string) error {
	cc, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	if err != nil {
		return err
	}
	mgr, err := manager.New(manager.Options{Config: cc.Config, Logger: log})
	if err != nil {
		return err
	}
	if _, err := scheduled.Setup(mgr, scheduled.Options{}); err != nil {
		return err
	}
	return mgr.Start(ctx)
}
