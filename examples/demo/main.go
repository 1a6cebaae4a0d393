// Command demo is what `make demo` runs: it starts a local control plane
// (etcd + kube-apiserver), lists its namespaces and API groups through the
// kubego REST client, prints them, and stops everything.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	start := time.Now()
	fmt.Fprintln(out, "starting a local control plane (etcd + kube-apiserver)…")
	cp, err := testenv.Start(ctx, testenv.Options{Logger: log})
	if err != nil {
		return err
	}
	defer func() {
		t := time.Now()
		if err := cp.Stop(); err != nil {
			log.Error("stopping the control plane", "err", err)
		}
		fmt.Fprintf(out, "control plane stopped (%s)\n", time.Since(t).Round(time.Millisecond))
	}()
	fmt.Fprintf(out, "control plane ready at %s in %s\n\n", cp.APIServer().URL(), time.Since(start).Round(time.Millisecond))

	c, err := rest.NewClient(cp.Config())
	if err != nil {
		return err
	}

	var nsList corev1.NamespaceList
	if err := c.Get().Version("v1").Resource("namespaces").Do(ctx).Into(&nsList); err != nil {
		return fmt.Errorf("listing namespaces: %w", err)
	}
	fmt.Fprintf(out, "namespaces (resourceVersion %s):\n", nsList.ResourceVersion)
	for _, ns := range nsList.Items {
		fmt.Fprintf(out, "  %-20s %s\n", ns.Name, ns.Status.Phase)
	}

	var groups metav1.APIGroupList
	if err := c.Get().AbsPath("/apis").Do(ctx).Into(&groups); err != nil {
		return fmt.Errorf("listing API groups: %w", err)
	}
	fmt.Fprintf(out, "\nAPI groups (%d, plus the core group \"v1\"):\n", len(groups.Groups))
	for _, g := range groups.Groups {
		fmt.Fprintf(out, "  %-40s preferred %s\n", g.Name, g.PreferredVersion.Version)
	}
	fmt.Fprintln(out)
	return nil
}
