package main

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/manager"
)

// runKubego is the kubego replica: a Manager with leader election (the
// default durations, ReleaseOnCancel) and one leader-only controller of
// the namespace's ConfigMaps, warm or cold on standby. SIGTERM stops it
// gracefully (the Lease is released).
func runKubego(f replicaFlags) error {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cc, err := kubeconfig.Load(kubeconfig.Options{})
	if err != nil {
		return err
	}
	standby := controller.StandbyCold
	if f.warm {
		standby = controller.StandbyWarm
	}
	mgr, err := manager.New(manager.Options{
		Config: cc.Config,
		Logger: log,
		LeaderElection: &leaderelection.Config{
			Lock:            types.NamespacedName{Namespace: f.namespace, Name: f.lease},
			Identity:        f.identity,
			ReleaseOnCancel: true,
		},
		Standby: standby,
	})
	if err != nil {
		return err
	}
	if err := mgr.Declare(informer.Declare[*corev1.ConfigMap](informer.SharedOptions{Namespace: f.namespace})); err != nil {
		return err
	}
	rep := &reporter{}
	cnt := &counter{r: rep, n: f.n}
	if _, err := mgr.NewController(controller.Options{
		Name: "failover",
		Reconciler: controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) {
			cnt.reconciled()
			return controller.Result{}, nil
		}),
		Sources: []controller.Source{controller.For[*corev1.ConfigMap]{}},
	}); err != nil {
		return err
	}
	ctx, stop := manager.SignalContext(context.Background())
	defer stop()
	go func() {
		select {
		case <-mgr.Elected():
			rep.tell(event{Ev: "leading"})
		case <-ctx.Done():
		}
	}()
	go func() {
		if !f.warm {
			select {
			case <-time.After(f.coldSettle):
			case <-mgr.Elected():
				return
			}
			if !mgr.IsLeader() {
				rep.standbyMemory()
			}
			return
		}
		for ctx.Err() == nil && !mgr.IsLeader() {
			if kubegoSynced(mgr) {
				rep.standbyMemory()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return mgr.Start(ctx)
}

// kubegoSynced reports whether the Manager's ConfigMap informer runs and
// has synced.
func kubegoSynced(mgr *manager.Manager) bool {
	found := false
	for name, ok := range mgr.Factory().SyncStates() {
		if strings.Contains(name, "ConfigMap") {
			if !ok {
				return false
			}
			found = true
		}
	}
	return found
}
