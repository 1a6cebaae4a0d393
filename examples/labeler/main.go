// Command labeler runs the labeler controller (package labeler) against the
// cluster of a kubeconfig: every Deployment gets the label
// sync-by=<name> when it has none.
//
//	go run ./examples/labeler -kubeconfig ~/.kube/config -leader-elect
//
// A local cluster for trying it is one command away: `kubego dev` prints
// a KUBECONFIG to use. `make demo` runs the whole thing end to end.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/examples/labeler/labeler"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/manager"
)

func main() {
	var (
		path        = flag.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)")
		name        = flag.String("name", "labeler", "controller name, the value of the sync-by label")
		namespace   = flag.String("namespace", "", "only label Deployments of this namespace (default: all)")
		workers     = flag.Int("workers", labeler.DefaultWorkers, "concurrent reconciles")
		metricsAddr = flag.String("metrics-addr", ":8080", "address of /metrics (empty: off)")
		healthAddr  = flag.String("health-addr", ":8081", "address of /healthz and /readyz (empty: off)")
		leaderElect = flag.Bool("leader-elect", false, "run only while leading the lease <lease-namespace>/<name>")
		leaseNS     = flag.String("lease-namespace", "kube-system", "namespace of the leader election lease")
		verbose     = flag.Bool("v", false, "debug logging")
	)
	flag.Parse()
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	ctx, stop := manager.SignalContext(context.Background())
	defer stop()
	if err := run(ctx, log, *path, *name, *namespace, *workers, *metricsAddr, *healthAddr, *leaderElect, *leaseNS); err != nil {
		log.Error("labeler failed", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, log *slog.Logger, path, name, namespace string, workers int, metricsAddr, healthAddr string, leaderElect bool, leaseNS string) error {
	cc, err := kubeconfig.Load(kubeconfig.Options{Path: path})
	if err != nil {
		return err
	}
	opts := manager.Options{
		Config:      cc.Config,
		MetricsAddr: metricsAddr,
		HealthAddr:  healthAddr,
		Logger:      log,
	}
	if leaderElect {
		opts.LeaderElection = &leaderelection.Config{
			Lock:            types.NamespacedName{Namespace: leaseNS, Name: name},
			ReleaseOnCancel: true,
		}
	}
	mgr, err := manager.New(opts)
	if err != nil {
		return err
	}
	if _, err := labeler.Setup(mgr, labeler.Options{Name: name, Namespace: namespace, Workers: workers}); err != nil {
		return err
	}
	log.Info("starting", "name", name, "server", cc.Config.Host)
	err = mgr.Start(ctx)
	if errors.Is(err, leaderelection.ErrLeaseLost) {
		return fmt.Errorf("stopping after losing leadership: %w", err)
	}
	return err
}
