package foos

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/objects"
	"github.com/kubego/kubego/record"
)

// Name is the controller's name: its metrics label, and the reporting
// controller of its Events.
const Name = "samplecontroller.k8s.io/foos"

// Event reasons.
const (
	ReasonSynced         = "Synced"
	ReasonResourceExists = "ErrResourceExists"
	ReasonInvalidSpec    = "InvalidSpec"
)

// Reconciler makes the Deployment of one Foo match it.
type Reconciler struct {
	// The two readers are the only reads: the caches of the informers the
	// controller's sources share (one informer per type in a Manager).
	// Writes go to the server.
	foos        *informer.Reader[*Foo]
	deployments *informer.Reader[*appsv1.Deployment]
	fooClient   *client.Resource[*Foo]
	depClient   *client.Resource[*appsv1.Deployment]
	kinds       client.KindResolver
	events      *record.Recorder
}

// Setup adds the Foo controller to mgr, whose client must know Foo
// (Register in manager.Options.Client.Registry).
func Setup(mgr *manager.Manager) (*controller.Controller, error) {
	events, err := mgr.EventRecorder(Name)
	if err != nil {
		return nil, err
	}
	foos, err := informer.NewReader[*Foo](mgr, informer.ReaderOptions{})
	if err != nil {
		return nil, err
	}
	deployments, err := informer.NewReader[*appsv1.Deployment](mgr, informer.ReaderOptions{})
	if err != nil {
		return nil, err
	}
	r := &Reconciler{
		foos:        foos,
		deployments: deployments,
		// Only the status is written, and its answer is not read.
		fooClient: client.Typed[*Foo](mgr.Client()).DiscardResults(),
		depClient: client.Typed[*appsv1.Deployment](mgr.Client()),
		kinds:     mgr.Client(),
		events:    events,
	}
	return mgr.NewController(controller.Options{
		Name:       "foos",
		Reconciler: r,
		Sources: []controller.Source{
			// Spec changes only: the controller's own status writes do
			// not come back as work.
			controller.For[*Foo]{Predicates: []controller.Predicate{controller.GenerationChanged}},
			// Any change of a Deployment a Foo controls, its deletion
			// included, enqueues that Foo.
			controller.Owns[*appsv1.Deployment]{},
		},
	})
}

// Reconcile creates or corrects the Deployment of the Foo named by req and
// writes the Foo's status.
func (r *Reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	foo, err := r.foos.Get(ctx, req.Key)
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil // deleted; the garbage collector deletes its Deployment
	}
	if err != nil {
		return controller.Result{}, err
	}
	name := foo.Spec.DeploymentName
	if name == "" {
		// Retrying cannot help: the next change of the spec enqueues it.
		r.events.Eventf(foo, nil, record.Warning, ReasonInvalidSpec, "Validate", "spec.deploymentName must be set")
		return controller.Result{}, nil
	}
	dep, err := r.deployments.Get(ctx, informer.Key{Namespace: foo.Namespace, Name: name})
	switch {
	case apierrors.IsNotFound(err):
		dep, err = r.create(ctx, foo)
	case err != nil:
		return controller.Result{}, err
	case !metav1.IsControlledBy(dep, foo):
		// Someone else's Deployment: never take it over. Retrying (with
		// backoff) notices when it goes away.
		r.events.Eventf(foo, nil, record.Warning, ReasonResourceExists, "Sync", "Deployment %s already exists and is not controlled by Foo %s", name, foo.Name)
		return controller.Result{}, fmt.Errorf("deployment %s/%s exists and is not controlled by foo %s", foo.Namespace, name, foo.Name)
	case foo.Spec.Replicas != nil && (dep.Spec.Replicas == nil || *dep.Spec.Replicas != *foo.Spec.Replicas):
		want := dep.DeepCopy()
		want.Spec.Replicas = foo.Spec.Replicas
		dep, err = objects.Patch(ctx, r.depClient, dep, want, objects.PatchOptions{})
	}
	if err != nil {
		return controller.Result{}, err
	}

	// The cached Foo is never modified: PatchStatus sends the difference
	// (nothing when there is none) to the status subresource.
	status := foo.DeepCopyObject().(*Foo)
	status.Status.AvailableReplicas = dep.Status.AvailableReplicas
	if _, err := objects.PatchStatus(ctx, r.fooClient, foo, status, objects.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return controller.Result{}, err
	}
	r.events.Eventf(foo, nil, record.Normal, ReasonSynced, "Sync", "Foo synced successfully")
	return controller.Result{}, nil
}

// create creates foo's Deployment, controlled by foo.
func (r *Reconciler) create(ctx context.Context, foo *Foo) (*appsv1.Deployment, error) {
	labels := map[string]string{"app": "nginx", "controller": foo.Name}
	dep := &appsv1.Deployment{
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
	if err := objects.SetControllerReference(foo, dep, r.kinds); err != nil {
		return nil, err
	}
	return r.depClient.Namespace(foo.Namespace).Create(ctx, dep, metav1.CreateOptions{})
}
