// Command customindex keeps a cache of every pod with an extra index, by
// node, and answers "which pods run on node X?" from memory, the way a
// scheduler or a node controller would:
//
//	go run ./examples/customindex -kubeconfig ~/.kube/config
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/rest"
)

// ByNode is the name of the index of pods by spec.nodeName.
const ByNode = "byNode"

// nodeOf indexes a pod under its node; unscheduled pods under "<none>".
// Index functions run on the informer's goroutine on shared objects: they
// must be quick and must not modify the pod.
func nodeOf(p *corev1.Pod) []string {
	if p.Spec.NodeName == "" {
		return []string{"<none>"}
	}
	return []string{p.Spec.NodeName}
}

func main() {
	path := flag.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)")
	flag.Parse()
	ctx, stop := manager.SignalContext(context.Background())
	defer stop()
	err := func() error {
		cc, err := kubeconfig.Load(kubeconfig.Options{Path: *path})
		if err != nil {
			return err
		}
		rc, err := rest.NewClient(cc.Config)
		if err != nil {
			return err
		}
		return podsByNode(ctx, client.New(rc, client.Options{}), os.Stdout)
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, "customindex:", err)
		os.Exit(1)
	}
}

// podsByNode starts a pod informer with the ByNode index, waits for it to
// sync, and prints the pods of each node from the index.
func podsByNode(ctx context.Context, c *client.Client, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	f := informer.NewFactory(c, informer.FactoryOptions{})
	pods, err := informer.Acquire[*corev1.Pod](f, informer.SharedOptions{})
	if err != nil {
		cancel()
		return err
	}
	pods.AddIndexers(map[string]informer.IndexFunc[*corev1.Pod]{ByNode: nodeOf})
	f.Start(ctx)
	defer func() {
		cancel()
		_ = f.Wait() // the informer has stopped once Wait returns
	}()
	if err := f.WaitForSync(ctx); err != nil {
		return err
	}

	lister := pods.Lister() // an informer's reads that do not wait for sync
	nodes, err := lister.IndexValues(ByNode)
	if err != nil {
		return err
	}
	slices.Sort(nodes)
	for _, node := range nodes {
		onNode, err := lister.ByIndex(ByNode, node)
		if err != nil {
			return err
		}
		names := make([]string, 0, len(onNode))
		for _, p := range onNode {
			names = append(names, p.Namespace+"/"+p.Name)
		}
		slices.Sort(names)
		fmt.Fprintf(out, "%s: %s\n", node, strings.Join(names, ", "))
	}
	return nil
}
