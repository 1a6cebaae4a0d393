// Command cronjob runs the CronJob operator of the kubebuilder book on
// kubego: the CronJob controller (package controller) and, given a
// serving certificate, its defaulting and validating webhooks (package
// webhooks). The CustomResourceDefinition comes from the Go types
// (package v1); -install-crd applies it first.
//
//	go run ./examples/cronjob -kubeconfig ~/.kube/config -install-crd
//	kubectl apply -f - <<<'{"apiVersion":"batch.tutorial.kubebuilder.io/v1","kind":"CronJob","metadata":{"name":"hello"},"spec":{"schedule":"*/1 * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"OnFailure","containers":[{"name":"hello","image":"busybox","args":["date"]}]}}}}}}'
//
// The webhook server starts when -webhook-cert-dir names a directory with
// tls.crt and tls.key; kube-apiserver must then be told to call it (a
// MutatingWebhookConfiguration for webhooks.DefaultPath and a
// ValidatingWebhookConfiguration for webhooks.ValidatePath).
package main

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/apischema"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
	v1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/examples/cronjob/controller"
	"github.com/kubego/kubego/examples/cronjob/webhooks"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/webhook"
	"github.com/kubego/kubego/webhook/admission"
)

type flags struct {
	kubeconfig, certDir, webhookAddr string
	installCRD                       bool
}

func main() {
	var f flags
	flag.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)")
	flag.StringVar(&f.certDir, "webhook-cert-dir", "", "directory of the webhooks' tls.crt and tls.key; empty runs no webhook server")
	flag.StringVar(&f.webhookAddr, "webhook-addr", webhook.DefaultAddr, "address the webhook server listens on")
	flag.BoolVar(&f.installCRD, "install-crd", false, "apply the CronJob CustomResourceDefinition before starting")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := manager.SignalContext(context.Background())
	defer stop()
	if err := run(ctx, log, f); err != nil {
		log.Error("cronjob failed", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, log *slog.Logger, f flags) error {
	cc, err := kubeconfig.Load(kubeconfig.Options{Path: f.kubeconfig})
	if err != nil {
		return err
	}
	reg := client.NewRegistry()
	v1.Register(reg)
	mgr, err := manager.New(manager.Options{Config: cc.Config, Client: client.Options{Registry: reg}, Logger: log})
	if err != nil {
		return err
	}
	if f.installCRD {
		def, err := v1.CRD(apischema.Options{})
		if err != nil {
			return err
		}
		dyn := dynamic.New(mgr.Client().REST(), dynamic.Options{})
		if err := crd.Install(ctx, dyn, []*unstructured.Unstructured{def}, crd.InstallOptions{FieldManager: "cronjob"}); err != nil {
			return err
		}
	}
	if _, err := controller.Setup(mgr, controller.Options{}); err != nil {
		return err
	}
	if f.certDir != "" {
		srv, err := webhook.New(webhook.Options{
			Addr:     f.webhookAddr,
			CertFile: filepath.Join(f.certDir, "tls.crt"),
			KeyFile:  filepath.Join(f.certDir, "tls.key"),
			Logger:   log,
		})
		if err != nil {
			return err
		}
		webhooks.Register(srv, admission.Options{Logger: log})
		if err := mgr.Add(srv); err != nil {
			return err
		}
		mgr.AddReadyzCheck("webhook", srv.ReadyCheck)
	}
	return mgr.Start(ctx)
}
