package manager_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/objects"
	"github.com/kubego/kubego/record"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// Gadget is a custom resource Go type known to the client only through
// its Registry.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

func (g *Gadget) DeepCopyObject() runtime.Object { return client.DeepCopy(g) }

var gadgetsGVR = schema.GroupVersionResource{Group: "managertest.example.com", Version: "v1", Resource: "gadgets"}

// gadgetCRD is Gadget's definition, built from the Go type.
func gadgetCRD(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	def, err := crd.Build(crd.Definition{
		Group:    gadgetsGVR.Group,
		Kind:     "Gadget",
		Scope:    crd.Namespaced,
		Versions: []crd.Version{{Name: gadgetsGVR.Version, Type: crd.TypeOf[*Gadget](), Storage: true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return def
}

// On the real server: Owns of a ConfigMap finds its custom owner's kind
// through the client's registry (no OwnerKind), the Manager's events are
// written when it stops, and the default field manager is the program's
// name.
func TestIntegrationManagerOwnedPieces(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := cp.InstallCRDObjects(ctx, gadgetCRD(t)); err != nil {
		t.Fatal(err)
	}
	reg := client.NewRegistry()
	client.Register[*Gadget](reg, gadgetsGVR, true)
	mgr, err := manager.New(manager.Options{Config: cp.Config(), Client: client.Options{Registry: reg}, Logger: kubegotest.Logger(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	c := mgr.Client()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	ns := "mgr-" + hex.EncodeToString(b)
	if _, err := client.Typed[*corev1.Namespace](c).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.Typed[*corev1.Namespace](c).Delete(context.Background(), ns, metav1.DeleteOptions{})
	})

	rec, err := mgr.EventRecorder("example.com/gadgets")
	if err != nil {
		t.Fatal(err)
	}
	gadgets := client.Typed[*Gadget](c).Namespace(ns)
	var mu sync.Mutex
	reconciled := map[string]int{}
	if err := mgr.Declare(
		informer.Declare[*Gadget](informer.SharedOptions{Namespace: ns}),
		informer.Declare[*corev1.ConfigMap](informer.SharedOptions{Namespace: ns}),
	); err != nil {
		t.Fatal(err)
	}
	_, err = mgr.NewController(controller.Options{
		Name: "gadgets",
		Reconciler: controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			g, err := gadgets.Get(ctx, req.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return controller.Result{}, nil
			}
			if err != nil {
				return controller.Result{}, err
			}
			mu.Lock()
			reconciled[req.Name]++
			mu.Unlock()
			rec.Eventf(g, nil, record.Normal, "Reconciled", "Reconcile", "gadget %s reconciled", g.Name)
			return controller.Result{}, nil
		}),
		Sources: []controller.Source{
			controller.For[*Gadget]{},
			controller.Owns[*corev1.ConfigMap]{},
		},
	})
	if err != nil {
		t.Fatalf("NewController with a registered custom owner and no OwnerKind: %v", err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(runCtx) }()

	g, err := gadgets.Create(ctx, &Gadget{ObjectMeta: metav1.ObjectMeta{Name: "g1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return reconciled["g1"] }
	kubegotest.Eventually(ctx, t, func(context.Context) error {
		if count() == 0 {
			return errNotYet("g1 not reconciled")
		}
		return nil
	})
	before := count()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "g1-config"}}
	if err := objects.SetControllerReference(g, cm, c); err != nil {
		t.Fatal(err)
	}
	created, err := client.Typed[*corev1.ConfigMap](c).Namespace(ns).Create(ctx, cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kubegotest.Eventually(ctx, t, func(context.Context) error {
		if count() == before {
			return errNotYet("the owned ConfigMap did not enqueue its Gadget")
		}
		return nil
	})
	stop()
	if err := <-done; err != nil {
		t.Fatalf("Start: %v", err)
	}
	// Stopped: the events are on the server, in both views.
	evs, err := kubegotest.Events(ctx, c, g)
	if err != nil || len(evs) == 0 || evs[0].Reason != "Reconciled" {
		t.Fatalf("events.k8s.io Events about g1: %v, %v", evs, err)
	}
	core, err := kubegotest.CoreEvents(ctx, c, g)
	if err != nil || len(core) == 0 || core[0].Reason != "Reconciled" {
		t.Fatalf("core/v1 Events about g1: %v, %v", core, err)
	}
	// The server named the writer after the program.
	for _, mf := range created.ManagedFields {
		if mf.Manager != "manager.test" {
			t.Errorf("ConfigMap managedFields manager %q, want manager.test (the program)", mf.Manager)
		}
	}
}

type errNotYet string

func (e errNotYet) Error() string { return string(e) }
