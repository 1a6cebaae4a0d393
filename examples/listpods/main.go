// Command listpods lists the pods of a namespace with the typed clientset,
// the way a client-go program would, page by page:
//
//	go run ./examples/listpods -kubeconfig ~/.kube/config -n kube-system
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/client/clientset"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/manager"
)

func main() {
	path := flag.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)")
	ns := flag.String("n", "", "namespace (default: the kubeconfig's; \"\" with -A)")
	all := flag.Bool("A", false, "all namespaces")
	selector := flag.String("l", "", "label selector")
	flag.Parse()

	ctx, stop := manager.SignalContext(context.Background())
	defer stop()
	cc, err := kubeconfig.Load(kubeconfig.Options{Path: *path})
	if err != nil {
		fmt.Fprintln(os.Stderr, "listpods:", err)
		os.Exit(1)
	}
	namespace := *ns
	if namespace == "" && !*all {
		namespace = cc.Namespace
	}
	cs, err := clientset.NewForConfig(cc.Config, client.Options{})
	if err == nil {
		err = listPods(ctx, cs, namespace, *selector, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "listpods:", err)
		os.Exit(1)
	}
}

// listPods prints the pods of namespace ("" for all) matching selector,
// reading the list in pages of 100.
func listPods(ctx context.Context, cs *clientset.Clientset, namespace, selector string, out io.Writer) error {
	fmt.Fprintf(out, "%-15s %-30s %-10s %s\n", "NAMESPACE", "NAME", "PHASE", "NODE")
	pods := cs.CoreV1().Pods(namespace)
	n := 0
	for pod, err := range pods.All(ctx, client.AllOptions{List: metav1.ListOptions{LabelSelector: selector, Limit: 100}}) {
		if err != nil {
			return err
		}
		printPod(out, pod)
		n++
	}
	fmt.Fprintf(out, "%d pods\n", n)
	return nil
}

func printPod(out io.Writer, p *corev1.Pod) {
	phase := string(p.Status.Phase)
	if phase == "" {
		phase = "-"
	}
	node := p.Spec.NodeName
	if node == "" {
		node = "<none>"
	}
	fmt.Fprintf(out, "%-15s %-30s %-10s %s\n", p.Namespace, p.Name, phase, node)
}
