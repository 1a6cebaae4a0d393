//go:build !foo_only

package main

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubego/kubego/bench/internal/ctlbench"
)

func init() {
	workloads["labeler"] = workload{
		// The labeler's cache is limited to its namespace, as the kubego
		// labeler's informer is.
		configure: func(opts *ctrl.Options, f ctlbench.Flags) error {
			opts.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{f.Namespace: {}}}
			return nil
		},
		setup: func(mgr ctrl.Manager) ([]client.Object, error) {
			err := (&LabelerReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr)
			return []client.Object{&appsv1.Deployment{}}, err
		},
	}
}

// labelKey and labelValue are the label the labeler adds: the same as
// examples/labeler's.
const (
	labelKey   = "sync-by"
	labelValue = "labeler"
)

// LabelerReconciler gives every Deployment the label sync-by when it has
// none.
type LabelerReconciler struct {
	client.Client
}

// SetupWithManager registers the labeler with mgr.
func (r *LabelerReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&appsv1.Deployment{}).
		Named("labeler").
		Complete(r)
}

// Reconcile labels one Deployment.
func (r *LabelerReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var d appsv1.Deployment
	if err := r.Get(ctx, req.NamespacedName, &d); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if _, has := d.Labels[labelKey]; has {
		return ctrl.Result{}, nil
	}
	patch := client.MergeFrom(d.DeepCopy())
	if d.Labels == nil {
		d.Labels = map[string]string{}
	}
	d.Labels[labelKey] = labelValue
	return ctrl.Result{}, client.IgnoreNotFound(r.Patch(ctx, &d, patch))
}
