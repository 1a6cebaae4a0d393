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
	version := fs.String("version", "", "kube-apiserver minor version")
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
	cp, err := testenv.Start(ctx, testenv.Options{Version: *version, APIServerFlags: fs.Args(), Logger: log, BuildProgress: progressPrinter()})
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
	fmt.Fprint(stdout, readyMessage(time.Since(start), cp.APIServer().URL(), path))
	<-ctx.Done()
	return nil
}

func buildControlPlane(ctx context.Context, version string, stdout io.Writer, log *slog.Logger) error {
	start := time.Now()
	bins, err := testenv.EnsureBinaries(ctx, testenv.BuildOptions{Version: version, Logger: log, Progress: progressPrinter()})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "kube-apiserver: %s\netcd: %s\n(%s)\n", bins.APIServer, bins.Etcd, time.Since(start).Round(time.Second))
	return nil
}

// progressPrinter draws a build's progress on stderr: in place on a
// terminal, as a line every 30 seconds otherwise.
func progressPrinter() func(testenv.BuildProgress) {
	return testenv.ProgressPrinter(os.Stderr, testenv.IsTerminal(os.Stderr), 30*time.Second)
}

// readyMessage is what dev prints once the control plane answers: where it
// is, the line that points a shell at it, and two commands to try there.
func readyMessage(took time.Duration, url, kubeconfig string) string {
	return fmt.Sprintf(`control plane ready in %s at %s
kubeconfig: %s

In another shell:

    export KUBECONFIG=%s
    kubectl get namespaces                 # any kubectl works against it
    go run ./examples/listpods -A          # kubego's typed clientset, page by page

Press Ctrl-C to stop (everything it started is removed).
`, took.Round(time.Millisecond), url, kubeconfig, kubeconfig)
}
