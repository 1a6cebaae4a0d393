package manager_test

import (
	"context"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/rbac"
)

// Permissions names what the Manager knows it does: the informers of its
// declarations, sources and readers (typed ones resolved to their
// resource), its Lease, its Events, its secure metrics' reviews, and the
// permissions its options and controllers give.
func TestPermissionsFromWhatTheManagerKnows(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	mgr, err := manager.New(manager.Options{
		Config:         srv.InProcessConfig(),
		LeaderElection: &leaderelection.Config{Lock: types.NamespacedName{Namespace: "sys", Name: "op"}},
		SecureMetrics:  &manager.SecureMetrics{},
		Permissions:    []rbac.Permission{{URL: "/custom", Verbs: []string{"get"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	if err := mgr.Declare(informer.DeclareMetadata(deployments, informer.SharedOptions{Namespace: "a"})); err != nil {
		t.Fatal(err)
	}
	if _, err := informer.NewReader[*appsv1.ReplicaSet](mgr, informer.ReaderOptions{Lazy: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := mgr.EventRecorder("example.com/op"); err != nil {
		t.Fatal(err)
	}
	_, err = mgr.NewController(controller.Options{
		Name:        "op",
		Sources:     []controller.Source{controller.For[*corev1.Secret]{}, controller.Owns[*corev1.ConfigMap]{}},
		Permissions: []rbac.Permission{{Resource: "secrets", Verbs: []string{"update"}}},
		Reconciler: controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) {
			return controller.Result{}, nil
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := mgr.Add(permittedRunnable{{Group: "apps", Resource: "deployments", Verbs: []string{"create"}, Namespace: "a"}}); err != nil {
		t.Fatal(err)
	}
	perms, err := mgr.Permissions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range perms {
		got = append(got, p.String())
	}
	slices.Sort(got)
	want := []string{
		"create leases.coordination.k8s.io in namespace sys",
		"create tokenreviews.authentication.k8s.io",
		"create subjectaccessreviews.authorization.k8s.io",
		"create,patch events.events.k8s.io",
		"get /custom",
		"get,update leases.coordination.k8s.io [op] in namespace sys",
		"list,watch deployments.apps in namespace a",
		"create deployments.apps in namespace a",
		"list,watch replicasets.apps",
		"list,watch configmaps",
		"list,watch secrets",
		"update secrets",
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("permissions:\n%q\nwant\n%q", got, want)
	}
}

// permittedRunnable is a Runnable that names its permissions.
type permittedRunnable []rbac.Permission

func (p permittedRunnable) Start(ctx context.Context) error { <-ctx.Done(); return nil }
func (p permittedRunnable) Permissions() []rbac.Permission  { return p }
