// Command kubego is kubego's command-line tool.
//
//	kubego dev [-kubeconfig PATH] [-- extra kube-apiserver flags]
//	    start a local control plane (etcd + kube-apiserver on loopback) and
//	    keep it running until Ctrl-C; prints the kubeconfig to use
//	kubego controlplane build
//	    build (or find in the cache) the kube-apiserver and etcd binaries
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	var ue usageError
	switch {
	case err == nil:
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "kubego:", err)
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "kubego:", err)
		os.Exit(1)
	}
}

const usage = `usage:
  kubego dev [-kubeconfig PATH] [-version 1.34] [-- extra kube-apiserver flags]
  kubego controlplane build [-version 1.34]

-version picks the kube-apiserver minor version (default: $KUBEGO_APISERVER_VERSION,
or the newest); every version is built once into the cache.
`

type usageError string

func (e usageError) Error() string { return string(e) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError("missing command")
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	switch args[0] {
	case "dev":
		return dev(ctx, args[1:], stdout, log)
	case "controlplane":
		if len(args) < 2 || args[1] != "build" {
			return usageError("controlplane takes one subcommand: build")
		}
		fs := newFlagSet("controlplane build")
		version := fs.String("version", "", "kube-apiserver minor version")
		if err := fs.Parse(args[2:]); err != nil {
			return usageError(err.Error())
		}
		if fs.NArg() > 0 {
			return usageError("controlplane build takes no arguments")
		}
		return buildControlPlane(ctx, *version, stdout, log)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		return usageError(fmt.Sprintf("unknown command %q", args[0]))
	}
}

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}
