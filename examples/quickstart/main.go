// Command quickstart is the controller shown in kubego's README: every
// Deployment gets a ConfigMap "<name>-replicas" holding its desired replica
// count, owned by the Deployment so that it is deleted with it.
//
//	go run ./examples/quickstart -kubeconfig ~/.kube/config
package main

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubeconfig"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/objects"
)

// Reconciler keeps the ConfigMap of one Deployment.
type Reconciler struct {
	deployments *informer.Reader[*appsv1.Deployment] // the shared cache
	configMaps  *client.Resource[*corev1.ConfigMap]  // writes go to the server
	kinds       client.KindResolver
}

// Reconcile is called with the key of a Deployment that changed, or whose
// ConfigMap changed. It is never called for one key twice at a time.
func (r *Reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	dep, err := r.deployments.Get(ctx, req.Key)
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil // deleted: its ConfigMap goes with it
	}
	if err != nil {
		return controller.Result{}, err // retried with backoff
	}
	replicas := int32(1)
	if dep.Spec.Replicas != nil {
		replicas = *dep.Spec.Replicas
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: dep.Namespace, Name: dep.Name + "-replicas"}}
	_, _, err = objects.CreateOrUpdate(ctx, r.configMaps, cm, func(cm *corev1.ConfigMap) error {
		cm.Data = map[string]string{"replicas": strconv.Itoa(int(replicas))}
		return objects.SetControllerReference(dep, cm, r.kinds)
	})
	return controller.Result{}, err
}

// Setup adds the controller to mgr.
func Setup(mgr *manager.Manager) (*controller.Controller, error) {
	deployments, err := informer.NewReader[*appsv1.Deployment](mgr, informer.ReaderOptions{})
	if err != nil {
		return nil, err
	}
	return mgr.NewController(controller.Options{
		Name: "quickstart",
		Reconciler: &Reconciler{
			deployments: deployments,
			configMaps:  client.Typed[*corev1.ConfigMap](mgr.Client()),
			kinds:       mgr.Client(),
		},
		Sources: []controller.Source{
			controller.For[*appsv1.Deployment]{},
			controller.Owns[*corev1.ConfigMap]{}, // a changed or deleted ConfigMap requeues its Deployment
		},
	})
}

func main() {
	path := flag.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)")
	flag.Parse()
	ctx, stop := manager.SignalContext(context.Background()) // ends on SIGINT or SIGTERM
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(ctx, log, *path); err != nil {
		log.Error("quickstart failed", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, log *slog.Logger, kubeconfigPath string) error {
	cc, err := kubeconfig.Load(kubeconfig.Options{Path: kubeconfigPath})
	if err != nil {
		return err
	}
	mgr, err := manager.New(manager.Options{Config: cc.Config, Logger: log})
	if err != nil {
		return err
	}
	if _, err := Setup(mgr); err != nil {
		return err
	}
	return mgr.Start(ctx) // until ctx ends; workers start once the caches are synced
}
