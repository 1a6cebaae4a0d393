package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	crcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// runCtrlRuntime is the controller-runtime v0.25 replica, set up as its
// documentation teaches: leader election with its default durations (the
// same as kubego's) and LeaderElectionReleaseOnCancel, a cache of the
// namespace, one controller For ConfigMaps, EnableWarmup as asked.
// SIGTERM stops it gracefully (ctrl.SetupSignalHandler).
func runCtrlRuntime(f replicaFlags) error {
	ctrl.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Metrics:                       metricsserver.Options{BindAddress: "0"},
		Cache:                         cache.Options{DefaultNamespaces: map[string]cache.Config{f.namespace: {}}},
		LeaderElection:                true,
		LeaderElectionID:              f.lease,
		LeaderElectionNamespace:       f.namespace,
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		return err
	}
	rep := &reporter{}
	cnt := &counter{r: rep, n: f.n}
	warm := f.warm
	err = ctrl.NewControllerManagedBy(mgr).
		Named("failover").
		For(&corev1.ConfigMap{}).
		WithOptions(crcontroller.Options{EnableWarmup: &warm}).
		Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
			cnt.reconciled()
			return reconcile.Result{}, nil
		}))
	if err != nil {
		return err
	}
	ctx := ctrl.SetupSignalHandler()
	go func() {
		select {
		case <-mgr.Elected():
			rep.tell(event{Ev: "leading"})
		case <-ctx.Done():
		}
	}()
	go func() {
		if !warm {
			select {
			case <-time.After(f.coldSettle):
			case <-mgr.Elected():
				return
			}
			rep.standbyMemory()
			return
		}
		// The warm-up's informer is the cache's one of ConfigMaps: taking
		// it here gives the same one, to read its sync.
		inf, err := mgr.GetCache().GetInformer(ctx, &corev1.ConfigMap{}, cache.BlockUntilSynced(false))
		if err != nil {
			return
		}
		for ctx.Err() == nil {
			select {
			case <-mgr.Elected():
				return
			default:
			}
			if inf.HasSynced() {
				rep.standbyMemory()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return mgr.Start(ctx)
}
