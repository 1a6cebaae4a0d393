package informer_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

// Widget is a CRD Go type written by hand, as client/doc.go recommends.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec,omitempty"`
}

type WidgetSpec struct {
	Size int `json:"size,omitempty"`
}

func (w *Widget) DeepCopyObject() runtime.Object { return client.DeepCopy(w) }

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// installWidgets installs the namespaced CRD widgets.<group> (kind Widget)
// through the dynamic client, removes it at cleanup, and waits until it is
// Established and its resource is served.
func installWidgets(t *testing.T, dyn *dynamic.Client, group string) schema.GroupVersionResource {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	name := "widgets." + group
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
					"spec": map[string]any{"type": "object", "properties": map[string]any{"size": map[string]any{"type": "integer"}}},
				}}},
			}},
		},
	}}
	if _, err := dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create CRD: %v", err)
	}
	t.Cleanup(func() { dyn.Resource(crdGVR).Delete(context.Background(), name, metav1.DeleteOptions{}) })
	gvr := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "widgets"}
	for {
		if established(ctx, dyn, name) {
			if _, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1}); err == nil {
				return gvr
			} else if !apierrors.IsNotFound(err) {
				t.Fatalf("listing widgets: %v", err)
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("CRD %s never established and served", name)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func established(ctx context.Context, dyn *dynamic.Client, name string) bool {
	crd, err := dyn.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return false
	}
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// events is a handler that reports notifications as strings on a channel.
type events chan string

func eventsFor[T informer.Object](ch events) informer.HandlerFuncs[T] {
	return informer.HandlerFuncs[T]{
		AddFunc: func(o T, initial bool) { ch <- fmt.Sprintf("add %s initial=%v", o.GetName(), initial) },
		UpdateFunc: func(old, o T) {
			ch <- fmt.Sprintf("update %s %s->%s", o.GetName(), old.GetResourceVersion(), o.GetResourceVersion())
		},
		DeleteFunc: func(o T, unknown bool) { ch <- fmt.Sprintf("delete %s unknown=%v", o.GetName(), unknown) },
	}
}

// expect waits for the next notification and compares it with want.
func (ch events) expect(t *testing.T, want string) {
	t.Helper()
	select {
	case got := <-ch:
		if got != want {
			t.Fatalf("notification %q, want %q", got, want)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no notification within 30 s, want %q", want)
	}
}

func crdClients(t *testing.T, cfg *rest.Config, gvr schema.GroupVersionResource) (*client.Client, *dynamic.Client) {
	t.Helper()
	rc, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	reg := client.NewRegistry()
	client.Register[*Widget](reg, gvr, true)
	return client.New(rc, client.Options{Registry: reg}), dynamic.New(rc, dynamic.Options{})
}

// A CRD informer through generics (informer.Shared[*Widget]) and an
// unstructured one (informer.SharedResource) over the same CRD, from one
// factory: creates, updates and deletes reach the handlers and the listers.
func TestIntegrationCRDInformers(t *testing.T) {
	cp := testenv.Shared(t)
	admin := newClient(t, cp.Config())
	ns := newNamespace(t, admin)
	rc, err := rest.NewClient(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	group := "inf-" + ns + ".example.com"
	gvr := installWidgets(t, dynamic.New(rc, dynamic.Options{}), group)
	c, dyn := crdClients(t, cp.Config(), gvr)

	f := informer.NewFactory(c, informer.FactoryOptions{})
	typed := mustAcquire(informer.Acquire[*Widget](f, informer.SharedOptions{Namespace: ns}))
	unstr := mustAcquire(informer.AcquireResource(f, gvr, informer.SharedOptions{Namespace: ns}))
	typedEv, unstrEv := make(events, 16), make(events, 16)
	typed.AddEventHandler(eventsFor[*Widget](typedEv), informer.HandlerOptions{})
	unstr.AddEventHandler(eventsFor[*unstructured.Unstructured](unstrEv), informer.HandlerOptions{})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	f.Start(ctx)
	if err := f.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}

	t.Run("typed", func(t *testing.T) {
		widgets := client.Typed[*Widget](c).Namespace(ns)
		w, err := widgets.Create(ctx, &Widget{ObjectMeta: metav1.ObjectMeta{Name: "w1"}, Spec: WidgetSpec{Size: 1}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		typedEv.expect(t, "add w1 initial=false")
		got, ok := typed.Lister().Namespace(ns).Get("w1")
		if !ok || got.Spec.Size != 1 || got.UID != w.UID {
			t.Fatalf("lister Get(w1) = %+v, %v", got, ok)
		}
		w = w.DeepCopyObject().(*Widget)
		w.Spec.Size = 2
		w2, err := widgets.Update(ctx, w, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		typedEv.expect(t, fmt.Sprintf("update w1 %s->%s", w.ResourceVersion, w2.ResourceVersion))
		if got, _ := typed.Lister().Namespace(ns).Get("w1"); got.Spec.Size != 2 {
			t.Fatalf("lister holds size %d after the update, want 2", got.Spec.Size)
		}
		if err := widgets.Delete(ctx, "w1", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		typedEv.expect(t, "delete w1 unknown=false")
		if _, ok := typed.Lister().Namespace(ns).Get("w1"); ok {
			t.Fatal("w1 still cached after its delete")
		}
	})

	t.Run("unstructured", func(t *testing.T) {
		// The typed test's events were seen by the unstructured informer too.
		for _, want := range []string{"add w1 initial=false", "update w1", "delete w1 unknown=false"} {
			select {
			case got := <-unstrEv:
				if len(got) < len(want) || got[:len(want)] != want {
					t.Fatalf("unstructured notification %q, want %q…", got, want)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("no unstructured notification, want %q", want)
			}
		}
		res := dyn.Resource(gvr).Namespace(ns)
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": gvr.GroupVersion().String(), "kind": "Widget",
			"metadata": map[string]any{"name": "u1"}, "spec": map[string]any{"size": int64(7)},
		}}
		u, err := res.Create(ctx, u, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		unstrEv.expect(t, "add u1 initial=false")
		typedEv.expect(t, "add u1 initial=false")
		got, ok := unstr.Lister().Namespace(ns).Get("u1")
		if size, _, _ := unstructured.NestedInt64(got.Object, "spec", "size"); !ok || size != 7 {
			t.Fatalf("unstructured lister Get(u1) = %v, %v", got, ok)
		}
		if w, ok := typed.Lister().Namespace(ns).Get("u1"); !ok || w.Spec.Size != 7 {
			t.Fatalf("typed lister Get(u1) = %+v, %v", w, ok)
		}
		u = u.DeepCopy()
		unstructured.SetNestedField(u.Object, int64(8), "spec", "size")
		u2, err := res.Update(ctx, u, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		unstrEv.expect(t, fmt.Sprintf("update u1 %s->%s", u.GetResourceVersion(), u2.GetResourceVersion()))
		if err := res.Delete(ctx, "u1", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		unstrEv.expect(t, "delete u1 unknown=false")
		if _, ok := unstr.Lister().Namespace(ns).Get("u1"); ok {
			t.Fatal("u1 still cached after its delete")
		}
	})
	cancel()
	if err := f.Wait(); err != nil {
		t.Fatal(err)
	}
}
