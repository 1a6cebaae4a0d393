package install

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/kubeconfig"
)

// ErrUsage is wrapped by Command's error for arguments it cannot parse.
var ErrUsage = errors.New("install: usage")

// Command runs the installation subcommand args names, if it names one,
// so that an operator's own binary installs it:
//
//	manifests             print the installation as YAML
//	install [-kubeconfig PATH]    apply it to the cluster
//	uninstall [-kubeconfig PATH] [-keep-crds]  remove what install added
//
// It returns handled false, doing nothing, when args is empty or its
// first element is none of these: the program then runs as usual. Output
// and the result of install and uninstall go to out. The cluster is
// reached as kubeconfig.Load finds it (-kubeconfig, $KUBECONFIG,
// in-cluster, ~/.kube/config).
func Command(ctx context.Context, args []string, o Operator, out io.Writer) (handled bool, err error) {
	if len(args) == 0 {
		return false, nil
	}
	sub := args[0]
	if sub != "manifests" && sub != "install" && sub != "uninstall" {
		return false, nil
	}
	fs := flag.NewFlagSet(sub, flag.ContinueOnError)
	fs.SetOutput(out)
	path := fs.String("kubeconfig", "", "kubeconfig file")
	keep := fs.Bool("keep-crds", false, "uninstall: keep the CustomResourceDefinitions and every custom object")
	if err := fs.Parse(args[1:]); err != nil {
		return true, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if fs.NArg() > 0 {
		return true, fmt.Errorf("%w: unexpected arguments %q", ErrUsage, fs.Args())
	}
	if sub == "manifests" {
		objs, err := o.Objects()
		if err != nil {
			return true, err
		}
		return true, WriteYAML(out, objs)
	}
	cc, err := kubeconfig.Load(kubeconfig.Options{Path: *path})
	if err != nil {
		return true, err
	}
	dc, err := dynamic.NewForConfig(cc.Config, dynamic.Options{})
	if err != nil {
		return true, err
	}
	var res Result
	if sub == "install" {
		res, err = Install(ctx, dc, o, Options{})
	} else {
		res, err = Uninstall(ctx, dc, o.Name, o.Namespace, Options{KeepCRDs: *keep})
	}
	report(out, res)
	return true, err
}

func report(out io.Writer, res Result) {
	for _, l := range []struct {
		what string
		refs []Ref
	}{{"created", res.Created}, {"changed", res.Changed}, {"unchanged", res.Unchanged}, {"kept", res.Kept}, {"deleted", res.Deleted}, {"already gone", res.Gone}} {
		for _, r := range l.refs {
			fmt.Fprintf(out, "%s %s\n", r, l.what)
		}
	}
}
