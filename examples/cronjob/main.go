// Command cronjob is the CronJob operator of the kubebuilder book on
// kubego: the CronJob controller (package controller), its defaulting and
// validating webhooks (package webhooks), and everything its installation
// needs, produced by the binary itself:
//
//	cronjob -image registry.example/cronjob:v1 manifests | kubectl apply --server-side -f -
//	cronjob -image registry.example/cronjob:v1 install     # the same, applied directly
//	cronjob uninstall                                      # removes what install added
//	cronjob                                                # runs the operator
//
// The installation holds the CustomResourceDefinition built from the Go
// types (package v1), the RBAC roles derived from what the Manager
// watches and writes, the webhook configurations generated from the
// registered handlers, their Service and a restricted Deployment. The
// webhook server provisions its own serving certificate (a CA kept in a
// Secret, rotated before expiry) and keeps the configurations' caBundle
// up to date; -webhook-cert-dir serves certificate files instead (from
// cert-manager, for one). A change of the CRD's storage version is
// migrated by the leader.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/apischema"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
	v1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/examples/cronjob/controller"
	"github.com/kubego/kubego/examples/cronjob/webhooks"
	"github.com/kubego/kubego/install"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/rbac"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/webhook"
	"github.com/kubego/kubego/webhookconfig"
)

// Name names the operator's ServiceAccount, Deployment, roles, Services
// and webhook configurations.
const Name = "cronjob-operator"

type flags struct {
	kubeconfig, namespace, image     string
	webhookAddr, webhookURL, certDir string
	healthAddr, rbacReport           string
	leaderElect, installCRD          bool
	args                             []string // a subcommand and its flags
}

func main() {
	f := flags{}
	flag.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)")
	flag.StringVar(&f.namespace, "namespace", envOr("POD_NAMESPACE", "cronjob-system"), "namespace the operator runs in")
	flag.StringVar(&f.image, "image", "example.com/cronjob-operator:latest", "container image of the installation's Deployment")
	flag.StringVar(&f.webhookAddr, "webhook-addr", webhook.DefaultAddr, "address the webhook server listens on")
	flag.StringVar(&f.webhookURL, "webhook-url", "", "base URL kube-apiserver calls the webhooks at, for a server outside the cluster; empty means the installation's Service")
	flag.StringVar(&f.certDir, "webhook-cert-dir", "", "serve tls.crt and tls.key from this directory instead of a certificate the program provisions")
	flag.StringVar(&f.healthAddr, "health-addr", ":8081", "address of /healthz and /readyz")
	flag.BoolVar(&f.leaderElect, "leader-elect", true, "run the controller and the storage migration only while leading (a Lease in -namespace)")
	flag.StringVar(&f.rbacReport, "rbac-report", "", "write every API request the program made to this file (JSON) when it stops, for rbac.Check")
	flag.BoolVar(&f.installCRD, "install-crd", false, "apply the CronJob CustomResourceDefinition before starting (development)")
	flag.Parse()
	f.args = flag.Args()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := manager.SignalContext(context.Background())
	defer stop()
	if err := run(ctx, log, f, os.Stdout); err != nil {
		log.Error("cronjob failed", "err", err)
		os.Exit(1)
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// operator is the program set up: its Manager, with every runnable added,
// and its installation.
type operator struct {
	mgr     *manager.Manager
	install install.Operator
}

func run(ctx context.Context, log *slog.Logger, f flags, out io.Writer) error {
	cfg, err := config(f)
	if err != nil {
		return err
	}
	var rec rbac.Recorder
	if f.rbacReport != "" {
		rec.Wrap(cfg)
	}
	op, err := setup(ctx, log, cfg, f)
	if err != nil {
		return err
	}
	if handled, err := install.Command(ctx, f.args, op.install, cfg, out); handled {
		return err
	}
	if len(f.args) > 0 {
		return fmt.Errorf("unknown command %q (want manifests, install or uninstall)", f.args[0])
	}
	if f.installCRD {
		if err := crd.Install(ctx, dynamic.New(op.mgr.Client().REST(), dynamic.Options{}), op.install.CRDs, crd.InstallOptions{FieldManager: Name}); err != nil {
			return err
		}
	}
	err = op.mgr.Start(ctx)
	if f.rbacReport != "" {
		if werr := writeReport(f.rbacReport, &rec); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}

// config is how the program reaches the API server. Printing the
// manifests needs no cluster: without a kubeconfig it gets a config that
// is never used.
func config(f flags) (*rest.Config, error) {
	cc, err := kubeconfig.Load(kubeconfig.Options{Path: f.kubeconfig})
	if err != nil {
		if len(f.args) > 0 && f.args[0] == "manifests" {
			return &rest.Config{Host: "https://kubernetes.invalid"}, nil
		}
		return nil, err
	}
	return cc.Config, nil
}

// setup builds the Manager with the controller, the webhook server, its
// certificates and caBundle upkeep and the storage migrator, and derives
// the installation from them.
func setup(ctx context.Context, log *slog.Logger, cfg *rest.Config, f flags) (*operator, error) {
	op := install.Operator{Name: Name, Namespace: f.namespace, Image: f.image, Replicas: 2, HealthPort: 8081, WebhookPort: 9443}
	reg := client.NewRegistry()
	v1.Register(reg)
	opts := manager.Options{Config: cfg, Client: client.Options{Registry: reg}, Logger: log, HealthAddr: f.healthAddr}
	if f.leaderElect {
		opts.LeaderElection = &leaderelection.Config{Lock: types.NamespacedName{Namespace: f.namespace, Name: Name}, ReleaseOnCancel: true}
	}
	mgr, err := manager.New(opts)
	if err != nil {
		return nil, err
	}
	if _, err := controller.Setup(mgr, controller.Options{}); err != nil {
		return nil, err
	}
	def, err := v1.CRD(apischema.Options{})
	if err != nil {
		return nil, err
	}
	op.CRDs = []*unstructured.Unstructured{def}
	if err := mgr.Add(&crd.Migrator{Client: dynamic.New(mgr.Client().REST(), dynamic.Options{}), Names: []string{def.GetName()}, Options: crd.MigrationOptions{Logger: log}}); err != nil {
		return nil, err
	}

	// The webhooks, their certificate and their configurations.
	srvOpts := webhook.Options{Addr: f.webhookAddr, Logger: log, Registerer: mgr.Registry()}
	target := webhookconfig.Target{}
	svc := op.WebhookService()
	if f.webhookURL != "" {
		target.URL = f.webhookURL
	} else {
		target.Service = &svc
	}
	var certs *webhookconfig.Certificates
	if f.certDir != "" {
		srvOpts.CertFile, srvOpts.KeyFile = filepath.Join(f.certDir, "tls.crt"), filepath.Join(f.certDir, "tls.key")
		if target.CABundle, err = os.ReadFile(filepath.Join(f.certDir, "ca.crt")); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	} else {
		copts := webhookconfig.CertificatesOptions{Namespace: f.namespace, Service: svc.Name, Secret: Name + "-webhook-ca", Logger: log}
		if f.webhookURL != "" {
			u, err := url.Parse(f.webhookURL)
			if err != nil {
				return nil, fmt.Errorf("-webhook-url: %w", err)
			}
			if ip := net.ParseIP(u.Hostname()); ip != nil {
				copts.IPs = []net.IP{ip}
			} else {
				copts.DNSNames = []string{u.Hostname()}
			}
		}
		if certs, err = webhookconfig.NewCertificates(mgr.Client(), copts); err != nil {
			return nil, err
		}
		srvOpts.GetCertificate = certs.GetCertificate
	}
	srv, err := webhook.New(srvOpts)
	if err != nil {
		return nil, err
	}
	set := webhookconfig.NewSet("cronjob", srv)
	webhooks.Add(set)
	cfgs, err := set.Configurations(ctx, mgr.Client(), target)
	if err != nil {
		return nil, err
	}
	op.MutatingWebhooks = append(op.MutatingWebhooks, cfgs.Mutating)
	op.ValidatingWebhooks = append(op.ValidatingWebhooks, cfgs.Validating)
	if err := mgr.Add(srv); err != nil {
		return nil, err
	}
	mgr.AddReadyzCheck("webhook", srv.ReadyCheck)
	if certs != nil {
		bundle, err := webhookconfig.NewBundleUpdater(mgr.Client(), certs, webhookconfig.BundleOptions{
			Mutating: []string{cfgs.Mutating.Name}, Validating: []string{cfgs.Validating.Name}, Logger: log,
		})
		if err != nil {
			return nil, err
		}
		if err := mgr.Add(certs); err != nil {
			return nil, err
		}
		if err := mgr.Add(bundle); err != nil {
			return nil, err
		}
	}

	if op.Permissions, err = mgr.Permissions(ctx); err != nil {
		return nil, err
	}
	return &operator{mgr: mgr, install: op}, nil
}

// writeReport writes the recorded requests, and those the server
// refused, as JSON.
func writeReport(path string, rec *rbac.Recorder) error {
	b, err := json.MarshalIndent(struct {
		Requests  []rbac.Request
		Forbidden []rbac.Request
	}{rec.Requests(), rec.Forbidden()}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
