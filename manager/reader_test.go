package manager_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/manager"
)

func TestReaderServesReconcilesFromTheControllersInformer(t *testing.T) {
	srv := fake.NewServer(fake.Options{}, deployment("apps", "web"), deployment("apps", "db"))
	defer srv.Close()
	mgr, err := manager.New(manager.Options{Config: srv.Config()})
	if err != nil {
		t.Fatal(err)
	}
	deployments, err := informer.NewReader[*appsv1.Deployment](mgr, informer.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	live := client.Typed[*appsv1.Deployment](mgr.Client())
	var missing atomic.Int64
	r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		d, err := deployments.Get(ctx, req.Key)
		if apierrors.IsNotFound(err) {
			missing.Add(1)
			return controller.Result{}, nil
		}
		if err != nil || d.Labels["done"] == "yes" {
			return controller.Result{}, err
		}
		_, err = live.Namespace(req.Namespace).Patch(ctx, req.Name, types.MergePatchType, []byte(`{"metadata":{"labels":{"done":"yes"}}}`), metav1.PatchOptions{})
		return controller.Result{}, err
	})
	ctl, err := mgr.NewController(controller.Options{Name: "labels", Reconciler: r,
		Sources: []controller.Source{controller.For[*appsv1.Deployment]{}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	eventually(t, "both labeled, as the reader sees it", func() bool {
		l, err := deployments.List(ctx, informer.ListOptions{Namespace: "apps"})
		if err != nil || len(l) != 2 {
			return false
		}
		for _, d := range l {
			if d.Labels["done"] != "yes" {
				return false
			}
		}
		return true
	})
	if err := live.Namespace("apps").Delete(ctx, "db", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the deleted one read as not found", func() bool { return missing.Load() > 0 })
	// One informer for the source and the reader.
	var names []string
	for name := range ctl.SyncStates() {
		names = append(names, name)
	}
	if n := metricSeries(t, mgr, "kubego_informer_synced"); n != 1 || len(names) != 1 || names[0] != deployments.Name() {
		t.Errorf("%d informer series, controller informers %v, reader %s; want one shared informer", n, names, deployments.Name())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Start: %v", err)
	}
}

func TestADeclarationAfterUseIsRefused(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	mgr, err := manager.New(manager.Options{Config: srv.Config()})
	if err != nil {
		t.Fatal(err)
	}
	r := controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) { return controller.Result{}, nil })
	if _, err := mgr.NewController(controller.Options{Reconciler: r, Sources: []controller.Source{controller.For[*appsv1.Deployment]{}}}); err != nil {
		t.Fatal(err)
	}
	// The source took the type without options: a declaration now would
	// change the informer under it.
	err = mgr.Declare(informer.Declare[*appsv1.Deployment](informer.SharedOptions{LabelSelector: "app=web"}))
	var ce *informer.OptionsConflictError
	if !errors.Is(err, informer.ErrDeclared) || !errors.As(err, &ce) || ce.Field != "LabelSelector" || !strings.Contains(err.Error(), `labels "app=web"`) {
		t.Fatalf("Declare = %v, want ErrDeclared with an *informer.OptionsConflictError naming both option sets", err)
	}
	// Declared first, the type's source and reader get the declared informer.
	if err := mgr.Declare(informer.Declare[*appsv1.ReplicaSet](informer.SharedOptions{Namespace: "a"})); err != nil {
		t.Fatal(err)
	}
	if _, err := mgr.NewController(controller.Options{Name: "rs", Reconciler: r, Sources: []controller.Source{controller.For[*appsv1.ReplicaSet]{}}}); err != nil {
		t.Fatal(err)
	}
	rs, err := informer.NewReader[*appsv1.ReplicaSet](mgr, informer.ReaderOptions{})
	if err != nil || !strings.HasSuffix(rs.Name(), "in namespace a") {
		t.Fatalf("reader %v (%v), want the informer of namespace a", rs.Name(), err)
	}
	if _, err := informer.Acquire[*appsv1.ReplicaSet](mgr.Factory(), informer.SharedOptions{}); err != nil {
		t.Fatalf("a request without options: %v", err)
	}
	if _, err := informer.Acquire[*appsv1.ReplicaSet](mgr.Factory(), informer.SharedOptions{Namespace: "b"}); !errors.Is(err, informer.ErrOptionsConflict) {
		t.Fatalf("a request of another namespace = %v, want a conflict", err)
	}
}

// metricSeries returns how many series the metric family name has in
// mgr's registry.
func metricSeries(t *testing.T, mgr *manager.Manager, name string) int {
	t.Helper()
	families, err := mgr.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return len(f.GetMetric())
		}
	}
	return 0
}
