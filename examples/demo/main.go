// Command demo is what `make demo` runs: it starts a local control plane
// (etcd + kube-apiserver), runs the labeler controller against it, creates
// a few Deployments through kubego, prints them once the labeler has
// labeled them, and stops everything.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/examples/labeler/labeler"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func main() {
	kubeconfigPath := flag.String("kubeconfig", "", "run against this existing cluster (kind, minikube, ...) instead of a local control plane; the demo works in a namespace of its own and deletes it at the end")
	flag.Parse()
	ctx, stop := manager.SignalContext(context.Background())
	defer stop()
	if err := run(ctx, os.Stdout, *kubeconfigPath); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, kubeconfigPath string) error {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

	// 1. A cluster: a local control plane, or the one given.
	var cfg *rest.Config
	ns := "demo"
	if kubeconfigPath != "" {
		cc, err := kubeconfig.Load(kubeconfig.Options{Path: kubeconfigPath})
		if err != nil {
			return err
		}
		cfg = cc.Config
		// A namespace of the demo's own, so the labeler touches nothing else.
		ns = fmt.Sprintf("kubego-demo-%d", time.Now().UnixNano()%100000)
		fmt.Fprintf(out, "using the cluster of context %q (%s), namespace %s\n", cc.Context, cfg.Host, ns)
	} else {
		start := time.Now()
		fmt.Fprintln(out, "starting a local control plane (etcd + kube-apiserver)…")
		cp, err := testenv.Start(ctx, testenv.Options{Logger: log})
		if err != nil {
			return err
		}
		defer func() {
			if err := cp.Stop(); err != nil {
				log.Error("stopping the control plane", "err", err)
			}
			fmt.Fprintln(out, "control plane stopped")
		}()
		fmt.Fprintf(out, "control plane ready in %s\n", time.Since(start).Round(time.Millisecond))
		cfg = cp.Config()
	}

	mgr, err := manager.New(manager.Options{Config: cfg, Logger: log})
	if err != nil {
		return err
	}
	if _, err := labeler.Setup(mgr, labeler.Options{Name: "kubego-demo", Namespace: ns}); err != nil {
		return err
	}
	mctx, stopManager := context.WithCancel(ctx)
	managerDone := make(chan error, 1)
	go func() { managerDone <- mgr.Start(mctx) }()
	defer func() {
		stopManager()
		if err := <-managerDone; err != nil {
			log.Error("labeler", "err", err)
		}
		fmt.Fprintln(out, "labeler stopped")
	}()
	fmt.Fprintln(out, "labeler running")

	// 2. A few Deployments, created through kubego.
	c := mgr.Client()
	namespaces := client.Typed[*corev1.Namespace](c)
	if _, err := namespaces.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	if kubeconfigPath != "" {
		defer func() {
			// Deleting the namespace removes the Deployments with it.
			if err := namespaces.Delete(context.WithoutCancel(ctx), ns, metav1.DeleteOptions{}); err != nil {
				log.Error("deleting the demo namespace", "namespace", ns, "err", err)
			} else {
				fmt.Fprintf(out, "namespace %s deleted\n", ns)
			}
		}()
	}
	deployments := client.Typed[*appsv1.Deployment](c).Namespace(ns)
	names := []string{"web", "api", "worker"}
	for _, name := range names {
		if _, err := deployments.Create(ctx, newDeployment(name), metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "created %d deployments in namespace %q\n\n", len(names), ns)

	// 3. Wait until the labeler has labeled them all, then print them.
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		list, err := deployments.List(wctx, metav1.ListOptions{LabelSelector: labeler.Label})
		if err != nil {
			return fmt.Errorf("waiting for labels: %w", err)
		}
		if len(list.Items) == len(names) {
			fmt.Fprintf(out, "%-10s %s\n", "NAME", "LABELS")
			for _, d := range list.Items {
				fmt.Fprintf(out, "%-10s %s\n", d.Name, metav1.FormatLabelSelector(&metav1.LabelSelector{MatchLabels: d.Labels}))
			}
			fmt.Fprintln(out)
			return nil // 4. the deferred calls stop everything
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("only %d of %d deployments labeled: %w", len(list.Items), len(names), wctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func newDeployment(name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: "nginx"}}},
			},
		},
	}
}
