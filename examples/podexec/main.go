// Command podexec runs a command in a Pod, or forwards local ports to it,
// through the API server, the way kubectl exec and kubectl port-forward
// do:
//
//	go run ./examples/podexec -n default -pod web -- ls -l /
//	echo hello | go run ./examples/podexec -n default -pod web -i -- cat
//	go run ./examples/podexec -n default -pod web -forward 8080:80,9090
//
// The command's exit code becomes the program's.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/podexec"
	"github.com/kubego/kubego/portforward"
	"github.com/kubego/kubego/rest"
)

func main() {
	path := flag.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)")
	ns := flag.String("n", "", "namespace (default: the kubeconfig's)")
	pod := flag.String("pod", "", "pod name (required)")
	container := flag.String("c", "", "container (default: the pod's only one)")
	stdin := flag.Bool("i", false, "pass standard input to the command")
	forward := flag.String("forward", "", "forward local ports instead: LOCAL:REMOTE or REMOTE, comma-separated")
	flag.Parse()

	ctx, stop := manager.SignalContext(context.Background())
	defer stop()
	code, err := run(ctx, *path, *ns, *pod, *container, *stdin, *forward, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "podexec:", err)
	}
	stop()
	os.Exit(code)
}

func run(ctx context.Context, path, ns, pod, container string, stdin bool, forward string, command []string) (int, error) {
	if pod == "" {
		return 2, errors.New("-pod is required")
	}
	cc, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	if err != nil {
		return 1, err
	}
	if ns == "" {
		ns = cc.Namespace
	}
	c, err := rest.NewClient(cc.Config)
	if err != nil {
		return 1, err
	}
	if forward != "" {
		return forwardPorts(ctx, c, ns, pod, forward)
	}
	if len(command) == 0 {
		return 2, errors.New("give a command after --, or -forward")
	}
	opts := podexec.Options{Namespace: ns, Pod: pod, Container: container, Command: command, Stdout: os.Stdout, Stderr: os.Stderr}
	if stdin {
		opts.Stdin = os.Stdin
	}
	return exitCode(podexec.Run(ctx, c, opts))
}

// exitCode maps Run's result to the program's exit code.
func exitCode(err error) (int, error) {
	var exit *podexec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &exit):
		return exit.Code, nil
	default:
		return 1, err
	}
}

func forwardPorts(ctx context.Context, c *rest.Client, ns, pod, spec string) (int, error) {
	ports, err := parsePorts(spec)
	if err != nil {
		return 2, err
	}
	f, err := portforward.Start(ctx, c, portforward.Options{Target: portforward.Target{Namespace: ns, Pod: pod}, Ports: ports})
	if err != nil {
		return 1, err
	}
	for _, p := range ports {
		fmt.Printf("Forwarding from 127.0.0.1:%d -> %d\n", f.Local(p.Remote), p.Remote)
	}
	f.Wait()
	return 0, nil
}

// parsePorts reads "8080:80,9090": LOCAL:REMOTE pairs or REMOTE alone (the
// same local port).
func parsePorts(spec string) ([]portforward.Port, error) {
	var out []portforward.Port
	for part := range strings.SplitSeq(spec, ",") {
		local, remote, found := strings.Cut(part, ":")
		if !found {
			remote = local
		}
		r, err := strconv.ParseUint(remote, 10, 16)
		if err != nil || r == 0 {
			return nil, fmt.Errorf("bad remote port in %q", part)
		}
		l := uint64(0)
		if local != "" {
			if l, err = strconv.ParseUint(local, 10, 16); err != nil {
				return nil, fmt.Errorf("bad local port in %q", part)
			}
		}
		out = append(out, portforward.Port{Local: uint16(l), Remote: uint16(r)})
	}
	return out, nil
}
