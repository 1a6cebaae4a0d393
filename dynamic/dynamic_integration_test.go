package dynamic_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestEveryVerbOnADeployment(t *testing.T) {
	rc, err := rest.NewClient(testenv.Shared(t).Config())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dc := dynamic.New(rc, dynamic.Options{})
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	ns := "dyn-" + hex.EncodeToString(b)
	nsObj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
	if _, err := dc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx, nsObj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deps := dc.Resource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}).Namespace(ns)
	w, err := deps.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	d := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"replicas": int64(1), "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "web", "image": "nginx"}}}}},
	}}
	if _, err := deps.Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ev := <-w.ResultChan()
	if ev.Type != watch.Added || ev.Object.(*unstructured.Unstructured).GetName() != "web" {
		t.Fatalf("event %v %T", ev.Type, ev.Object)
	}
	got, err := deps.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); r != 1 {
		t.Fatalf("replicas %d", r)
	}
	list, err := deps.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].GetKind() != "Deployment" {
		t.Fatalf("list %v %v", list, err)
	}
	_ = unstructured.SetNestedField(got.Object, "nginx:2", "spec", "template", "spec", "containers", "0", "image")
	got.SetLabels(map[string]string{"updated": "yes"})
	if got, err = deps.Update(ctx, got, metav1.UpdateOptions{}); err != nil || got.GetLabels()["updated"] != "yes" {
		t.Fatalf("update %v", err)
	}
	_ = unstructured.SetNestedField(got.Object, int64(1), "status", "replicas")
	if _, err := deps.UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := deps.Patch(ctx, "web", types.StrategicMergePatchType, []byte(`{"metadata":{"labels":{"smp":"1"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	scale, err := deps.Get(ctx, "web", metav1.GetOptions{}, "scale")
	if err != nil || scale.GetKind() != "Scale" {
		t.Fatalf("scale %v %v", scale, err)
	}
	applied, err := deps.Apply(ctx, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web", "annotations": map[string]any{"owner": "me"}}}}, dynamic.ApplyOptions{FieldManager: "dyn"})
	if err != nil || applied.GetAnnotations()["owner"] != "me" {
		t.Fatalf("apply %v", err)
	}
	if err := deps.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := deps.Get(ctx, "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after delete: %v", err)
	}
	if err := deps.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
}
