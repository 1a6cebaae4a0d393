package install_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/install"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/rbac"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// Widget is the custom resource of the test operator.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size int32 `json:"size"`
	} `json:"spec"`
	Status struct {
		Ready bool `json:"ready,omitempty"`
	} `json:"status,omitzero"`
}

// warnings collects the Warning headers of responses.
type warnings struct {
	mu   sync.Mutex
	seen []string
}

func (w *warnings) HandleWarning(_ int, _, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

func testOperator(t *testing.T, name, namespace string) install.Operator {
	t.Helper()
	group := name + ".install.kubego.test"
	def, err := crd.Build(crd.Definition{Group: group, Kind: "Widget", Versions: []crd.Version{{Name: "v1", Type: crd.TypeOf[Widget](), Status: true}}})
	if err != nil {
		t.Fatal(err)
	}
	o := install.Operator{
		Name: name, Namespace: namespace, Image: "example.com/widget-operator:v1",
		CRDs: []*unstructured.Unstructured{def},
		Permissions: []rbac.Permission{
			{Group: group, Resource: "widgets", Verbs: []string{"get", "list", "watch"}},
			{Group: group, Resource: "widgets/status", Verbs: []string{"update", "patch"}},
			{Group: "coordination.k8s.io", Resource: "leases", Verbs: []string{"get", "create", "update"}, Namespace: namespace},
		},
		MetricsPort: 8443, MetricsService: true,
	}
	ignore := admissionregistrationv1.Ignore
	none := admissionregistrationv1.SideEffectClassNone
	svc := o.WebhookService()
	path := "/validate-widgets"
	svc.Path = &path
	o.ValidatingWebhooks = []*admissionregistrationv1.ValidatingWebhookConfiguration{{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "widgets." + group,
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{Service: &svc},
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             &none,
			FailurePolicy:           &ignore,
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}},
			}},
		}},
	}}
	return o
}

func TestIntegrationInstallTwiceChangesNothingAndUninstallLeavesNothing(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cfg := cp.Config()
	warn := &warnings{}
	cfg.WarningHandler = warn
	dc, err := dynamic.NewForConfig(cfg, dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("widgets%d", time.Now().UnixNano()%1e9)
	o := testOperator(t, name, name+"-system")
	objs, err := o.Objects()
	if err != nil {
		t.Fatal(err)
	}

	first, err := install.Install(ctx, dc, o, install.Options{})
	if err != nil {
		t.Fatalf("first install: %v", err)
	}
	if len(first.Created) != len(objs) {
		t.Errorf("first install created %d objects, want all %d: %+v", len(first.Created), len(objs), first)
	}
	for _, w := range warn.seen {
		if strings.Contains(w, "PodSecurity") {
			t.Errorf("the Deployment would violate the namespace's restricted Pod Security Standard: %s", w)
		}
	}

	second, err := install.Install(ctx, dc, o, install.Options{})
	if err != nil {
		t.Fatalf("second install: %v", err)
	}
	if len(second.Created)+len(second.Changed) != 0 || len(second.Unchanged) != len(objs) {
		t.Errorf("the second install changed something: %+v", second)
	}

	res, err := install.Uninstall(ctx, dc, o.Name, o.Namespace, install.Options{})
	if err != nil {
		t.Fatalf("uninstall: %v", err)
	}
	if len(res.Deleted) != len(objs)+1 { // and the inventory
		t.Errorf("uninstall deleted %d objects, want %d: %+v", len(res.Deleted), len(objs)+1, res)
	}
	// Every kind the installation touched holds nothing of it, but for
	// the Namespace, which is terminating: removing what a namespace
	// holds is kube-controller-manager's work, which testenv does not run.
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		for _, obj := range objs {
			gvr := gvrOf(obj)
			r := dc.Resource(gvr)
			if ns := obj.GetNamespace(); ns != "" {
				r = r.Namespace(ns)
			}
			got, err := r.Get(ctx, obj.GetName(), metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
			case err != nil:
				return err
			case obj.GetKind() == "Namespace" && got.GetDeletionTimestamp() != nil:
			default:
				return fmt.Errorf("%s %s is still there", obj.GetKind(), obj.GetName())
			}
		}
		return nil
	})
	if _, err := install.Uninstall(ctx, dc, o.Name, o.Namespace, install.Options{}); !errors.Is(err, install.ErrNotInstalled) {
		t.Errorf("a second uninstall: %v, want ErrNotInstalled", err)
	}
}

func TestIntegrationInstallKeepsANamespaceThatExisted(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	dc, err := dynamic.NewForConfig(cp.Config(), dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("gadgets%d", time.Now().UnixNano()%1e9)
	nsGVR := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	ns := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"name": name, "labels": map[string]any{"team": "a"}},
	}}
	if _, err := dc.Resource(nsGVR).Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	before, err := dc.Resource(nsGVR).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o := testOperator(t, name, name)
	res, err := install.Install(ctx, dc, o, install.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kept) != 1 || res.Kept[0].Kind != "Namespace" {
		t.Errorf("kept %v, want the namespace", res.Kept)
	}
	if _, err := install.Uninstall(ctx, dc, o.Name, o.Namespace, install.Options{}); err != nil {
		t.Fatal(err)
	}
	after, err := dc.Resource(nsGVR).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the namespace that existed before the installation: %v", err)
	}
	if after.GetResourceVersion() != before.GetResourceVersion() || after.GetDeletionTimestamp() != nil {
		t.Errorf("the namespace that existed before was changed: rv %s -> %s, deletion %v",
			before.GetResourceVersion(), after.GetResourceVersion(), after.GetDeletionTimestamp())
	}
}

func gvrOf(obj *unstructured.Unstructured) schema.GroupVersionResource {
	gv, _ := schema.ParseGroupVersion(obj.GetAPIVersion())
	return gv.WithResource(strings.ToLower(obj.GetKind()) + "s") // true of every kind an installation holds
}
