package rbac_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/leaderelection"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/rbac"
)

// The RBAC objects of a Manager, derived from what it declares: its
// controller's source (list and watch ConfigMaps in "shop"), the
// controller's write, and its leader election Lease.
func Example() {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	mgr, err := manager.New(manager.Options{
		Config:         srv.InProcessConfig(),
		LeaderElection: &leaderelection.Config{Lock: types.NamespacedName{Namespace: "shop", Name: "pricer"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := mgr.Declare(informer.Declare[*corev1.ConfigMap](informer.SharedOptions{Namespace: "shop"})); err != nil {
		fmt.Println(err)
		return
	}
	_, err = mgr.NewController(controller.Options{
		Name:        "pricer",
		Sources:     []controller.Source{controller.For[*corev1.ConfigMap]{}},
		Permissions: []rbac.Permission{{Resource: "configmaps", Verbs: []string{"update"}, Namespace: "shop"}},
		Reconciler: controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) {
			return controller.Result{}, nil
		}),
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	perms, err := mgr.Permissions(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := rbac.Derive(perms, rbac.Options{ServiceAccount: types.NamespacedName{Namespace: "shop", Name: "pricer"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	y, err := m.YAML()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(y))
	// Output:
	// apiVersion: rbac.authorization.k8s.io/v1
	// kind: Role
	// metadata:
	//   name: pricer
	//   namespace: shop
	// rules:
	// - apiGroups:
	//   - ""
	//   resources:
	//   - configmaps
	//   verbs:
	//   - list
	//   - watch
	//   - update
	// - apiGroups:
	//   - coordination.k8s.io
	//   resources:
	//   - leases
	//   verbs:
	//   - create
	// - apiGroups:
	//   - coordination.k8s.io
	//   resourceNames:
	//   - pricer
	//   resources:
	//   - leases
	//   verbs:
	//   - get
	//   - update
	// ---
	// apiVersion: rbac.authorization.k8s.io/v1
	// kind: RoleBinding
	// metadata:
	//   name: pricer
	//   namespace: shop
	// roleRef:
	//   apiGroup: rbac.authorization.k8s.io
	//   kind: Role
	//   name: pricer
	// subjects:
	// - kind: ServiceAccount
	//   name: pricer
	//   namespace: shop
}

// The requests a program made, recorded through its rest.Config and
// checked against rules: what the rules do not allow, and what no request
// used.
func ExampleCheck() {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	cfg := srv.InProcessConfig()
	var rec rbac.Recorder
	rec.Wrap(cfg)
	c, err := client.NewForConfig(cfg, client.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	cms := client.Typed[*corev1.ConfigMap](c).Namespace("shop")
	cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "prices"}}, metav1.CreateOptions{})
	cms.Get(ctx, "prices", metav1.GetOptions{})

	m, err := rbac.Derive([]rbac.Permission{
		{Resource: "configmaps", Verbs: []string{"get", "delete"}, Namespace: "shop"},
	}, rbac.Options{ServiceAccount: types.NamespacedName{Namespace: "shop", Name: "pricer"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	unused, err := rbac.Check(m, rec.Requests())
	fmt.Println(err)
	for _, u := range unused {
		fmt.Println("unused:", u)
	}
	// Output:
	// rbac: the rules deny 1 request: create configmaps in namespace shop
	// unused: Role shop/pricer: delete configmaps
}
