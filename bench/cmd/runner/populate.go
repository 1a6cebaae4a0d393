package main

import (
	"context"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/bench/internal/fixture"
	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/rest"
)

// populate creates the namespaces, n realistic Pods (with a field manager,
// so they carry managedFields) and the watch ConfigMaps, concurrently.
func populate(ctx context.Context, cfg *rest.Config, n int) error {
	rc, err := rest.NewClient(cfg)
	if err != nil {
		return err
	}
	c := client.New(rc, client.Options{})
	for _, ns := range []string{fixture.PodNamespace, fixture.WatchNamespace} {
		_, err := client.Typed[*corev1.Namespace](c).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	create := metav1.CreateOptions{FieldManager: fixture.FieldManager}
	pods := client.Typed[*corev1.Pod](c).Namespace(fixture.PodNamespace)
	var done atomic.Int64
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				logf("populating: %d objects", done.Load())
			}
		}
	}()
	if err := fixture.Parallel(ctx, n, 32, func(i int) error {
		_, err := pods.Create(ctx, fixture.Pod(i), create)
		done.Add(1)
		return err
	}); err != nil {
		return err
	}
	cms := client.Typed[*corev1.ConfigMap](c).Namespace(fixture.WatchNamespace)
	return fixture.Parallel(ctx, fixture.WatchConfigMaps, 32, func(i int) error {
		_, err := cms.Create(ctx, fixture.ConfigMap(i), create)
		return err
	})
}
