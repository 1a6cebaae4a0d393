// Command crdcontroller installs the Widget custom resource (a Go type, no
// generated code: package widget), optionally creates a sample, and runs
// its controller:
//
//	go run ./examples/crdcontroller -kubeconfig ~/.kube/config -sample
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/examples/crdcontroller/widget"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/manager"
)

func main() {
	path := flag.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)")
	sample := flag.Bool("sample", false, "create the Widget default/sample")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := manager.SignalContext(context.Background())
	defer stop()
	if err := run(ctx, log, *path, *sample); err != nil {
		log.Error("crdcontroller failed", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, log *slog.Logger, path string, sample bool) error {
	cc, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	if err != nil {
		return err
	}
	reg := client.NewRegistry()
	widget.Register(reg)
	mgr, err := manager.New(manager.Options{Config: cc.Config, Client: client.Options{Registry: reg}, Logger: log})
	if err != nil {
		return err
	}
	if err := widget.Install(ctx, mgr.Client()); err != nil {
		return err
	}
	if sample {
		w := &widget.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "sample"}, Spec: widget.Spec{Color: "blue", Size: 3}}
		if _, err := client.Typed[*widget.Widget](mgr.Client()).Create(ctx, w, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating the sample: %w", err)
		}
	}
	if _, err := widget.Setup(mgr); err != nil {
		return err
	}
	return mgr.Start(ctx)
}
