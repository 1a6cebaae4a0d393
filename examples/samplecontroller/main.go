// Command samplecontroller runs the Foo controller (package foos), the
// behaviour of Kubernetes' sample-controller: it installs the Foo
// CustomResourceDefinition and keeps one Deployment per Foo.
//
//	go run ./examples/samplecontroller -kubeconfig ~/.kube/config
//	kubectl apply -f - <<<'{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo","metadata":{"name":"example"},"spec":{"deploymentName":"example-foo","replicas":1}}'
package main

import (
	"context"
	"flag"
	"log/slog"
	"os"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/examples/samplecontroller/foos"
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
		log.Error("samplecontroller failed", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, log *slog.Logger, path string) error {
	cc, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	if err != nil {
		return err
	}
	reg := client.NewRegistry()
	foos.Register(reg)
	mgr, err := manager.New(manager.Options{Config: cc.Config, Client: client.Options{Registry: reg}, Logger: log})
	if err != nil {
		return err
	}
	if err := foos.Install(ctx, mgr.Client()); err != nil {
		return err
	}
	if _, err := foos.Setup(mgr); err != nil {
		return err
	}
	return mgr.Start(ctx)
}
