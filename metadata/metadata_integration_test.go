package metadata_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/metadata"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestMetadataOfSecrets(t *testing.T) {
	rc, err := rest.NewClient(testenv.Shared(t).Config())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ns := "meta-" + time.Now().Format("150405.000000")[7:]
	if err := rc.Post().Resource("namespaces").Body(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}).Do(ctx).Error(); err != nil {
		t.Fatal(err)
	}
	if err := rc.Post().Namespace(ns).Resource("secrets").Body(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Labels: map[string]string{"a": "b"}}, StringData: map[string]string{"password": "hunter2"}}).Do(ctx).Error(); err != nil {
		t.Fatal(err)
	}
	secrets := metadata.New(rc, metadata.Options{}).Resource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}).Namespace(ns)

	w, err := secrets.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if ev := <-w.ResultChan(); ev.Type != watch.Added || ev.Object.(*metav1.PartialObjectMetadata).Name != "s" {
		t.Fatalf("event %v %T", ev.Type, ev.Object)
	}
	got, err := secrets.Get(ctx, "s", metav1.GetOptions{})
	if err != nil || got.Labels["a"] != "b" || got.Kind != "PartialObjectMetadata" {
		t.Fatalf("get %+v %v", got, err)
	}
	list, err := secrets.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Kind != "PartialObjectMetadataList" {
		t.Fatalf("list %+v %v", list, err)
	}
	patched, err := secrets.Patch(ctx, "s", types.MergePatchType, []byte(`{"metadata":{"labels":{"c":"d"}}}`), metav1.PatchOptions{})
	if err != nil || patched.Labels["c"] != "d" {
		t.Fatalf("patch %+v %v", patched, err)
	}
	if err := secrets.Delete(ctx, "s", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := secrets.Get(ctx, "s", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after delete: %v", err)
	}
	if err := secrets.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
}
