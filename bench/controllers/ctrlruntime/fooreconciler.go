//go:build !labeler_only

package main

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/kubego/kubego/bench/internal/ctlbench"
)

func init() {
	workloads["foo"] = workload{
		configure: func(opts *ctrl.Options, _ ctlbench.Flags) error { return addFoo(opts.Scheme) },
		setup: func(mgr ctrl.Manager) ([]client.Object, error) {
			err := (&FooReconciler{
				Client:   mgr.GetClient(),
				Scheme:   mgr.GetScheme(),
				Recorder: mgr.GetEventRecorder("samplecontroller.k8s.io/foos"),
			}).SetupWithManager(mgr)
			return []client.Object{&Foo{}, &appsv1.Deployment{}}, err
		},
	}
}

// FooReconciler keeps one Deployment per Foo and reports its available
// replicas in the Foo's status: the sample-controller's behaviour, as in
// examples/samplecontroller.
type FooReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder recorder.EventRecorder
}

// SetupWithManager registers the Foo controller with mgr: spec changes of
// Foos, and any change of a Deployment a Foo controls.
func (r *FooReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&Foo{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&appsv1.Deployment{}).
		Named("foos").
		Complete(r)
}

// Reconcile creates or corrects the Deployment of one Foo and writes the
// Foo's status.
func (r *FooReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var foo Foo
	if err := r.Get(ctx, req.NamespacedName, &foo); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	name := foo.Spec.DeploymentName
	if name == "" {
		r.Recorder.Eventf(&foo, nil, corev1.EventTypeWarning, "InvalidSpec", "Validate", "spec.deploymentName must be set")
		return ctrl.Result{}, nil
	}
	var dep appsv1.Deployment
	err := r.Get(ctx, types.NamespacedName{Namespace: foo.Namespace, Name: name}, &dep)
	switch {
	case apierrors.IsNotFound(err):
		dep = *newDeployment(&foo)
		if err := ctrl.SetControllerReference(&foo, &dep, r.Scheme); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, &dep); err != nil {
			return ctrl.Result{}, err
		}
	case err != nil:
		return ctrl.Result{}, err
	case !metav1.IsControlledBy(&dep, &foo):
		r.Recorder.Eventf(&foo, nil, corev1.EventTypeWarning, "ErrResourceExists", "Sync", "Deployment %s already exists and is not controlled by Foo %s", name, foo.Name)
		return ctrl.Result{}, fmt.Errorf("deployment %s/%s exists and is not controlled by foo %s", foo.Namespace, name, foo.Name)
	case foo.Spec.Replicas != nil && (dep.Spec.Replicas == nil || *dep.Spec.Replicas != *foo.Spec.Replicas):
		patch := client.MergeFrom(dep.DeepCopy())
		dep.Spec.Replicas = foo.Spec.Replicas
		if err := r.Patch(ctx, &dep, patch); err != nil {
			return ctrl.Result{}, err
		}
	}

	if foo.Status.AvailableReplicas != dep.Status.AvailableReplicas {
		patch := client.MergeFrom(foo.DeepCopy())
		foo.Status.AvailableReplicas = dep.Status.AvailableReplicas
		if err := r.Status().Patch(ctx, &foo, patch); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	r.Recorder.Eventf(&foo, nil, corev1.EventTypeNormal, "Synced", "Sync", "Foo synced successfully")
	return ctrl.Result{}, nil
}

func newDeployment(foo *Foo) *appsv1.Deployment {
	labels := map[string]string{"app": "nginx", "controller": foo.Name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: foo.Namespace, Name: foo.Spec.DeploymentName},
		Spec: appsv1.DeploymentSpec{
			Replicas: foo.Spec.Replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:latest"}}},
			},
		},
	}
}
