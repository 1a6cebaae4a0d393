package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/kubego/kubego/testenv"
)

func dev(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := newFlagSet("dev")
	kubeconfigPath := fs.String("kubeconfig", "", "where to write the kubeconfig (default: a new temporary directory)")
	if err := fs.Parse(args); err != nil {
		return usageError(err.Error())
	}
	path := *kubeconfigPath
	if path == "" {
		dir, err := os.MkdirTemp("", "kubego-dev-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "kubeconfig")
	}
	start := time.Now()
	cp, err := testenv.Start(ctx, testenv.Options{APIServerFlags: fs.Args(), Logger: log})
	if err != nil {
		return err
	}
	defer func() {
		fmt.Fprintln(stdout, "stopping the control plane")
		if err := cp.Stop(); err != nil {
			log.Error("stop", "err", err)
		}
	}()
	if err := cp.WriteKubeconfig(path); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "control plane ready in %s at %s\nkubeconfig: %s\n\n    export KUBECONFIG=%s\n\nPress Ctrl-C to stop.\n",
		time.Since(start).Round(time.Millisecond), cp.APIServer().URL(), path, path)
	<-ctx.Done()
	return nil
}

func buildControlPlane(ctx context.Context, stdout io.Writer, log *slog.Logger) error {
	start := time.Now()
	bins, err := testenv.EnsureBinaries(ctx, log)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "kube-apiserver: %s\netcd: %s\n(%s)\n", bins.APIServer, bins.Etcd, time.Since(start).Round(time.Second))
	return nil
}
