package manager_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/kubegotest"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/testenv"
)

// On the real server: a Reader gets, lists by label and reads an index of
// the objects its one informer caches; a missing object is NotFound; a
// Reader of a resource the server does not serve fails with the sync
// error, never NotFound.
func TestIntegrationReaderOnTheRealServer(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	reg := client.NewRegistry()
	client.Register[*Gadget](reg, schema.GroupVersionResource{Group: "notinstalled.example.com", Version: "v1", Resource: "gadgets"}, true)
	mgr, err := manager.New(manager.Options{Config: cp.Config(), Client: client.Options{Registry: reg}, Logger: kubegotest.Logger(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	ns := "reader-" + hex.EncodeToString(b)
	c := mgr.Client()
	if _, err := client.Typed[*corev1.Namespace](c).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.Typed[*corev1.Namespace](c).Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
	cms := client.Typed[*corev1.ConfigMap](c).Namespace(ns)
	for _, cm := range []struct{ name, tier string }{{"a", "web"}, {"b", "web"}, {"c", "db"}} {
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: cm.name, Labels: map[string]string{"tier": cm.tier}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	err = mgr.Declare(informer.Declare[*corev1.ConfigMap](informer.SharedOptions{
		Namespace: ns,
		Indexers:  map[string]func(informer.Object) []string{"tier": func(o informer.Object) []string { return []string{o.GetLabels()["tier"]} }},
	}))
	if err != nil {
		t.Fatal(err)
	}
	reader, err := informer.NewReader[*corev1.ConfigMap](mgr, informer.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	unserved, err := informer.NewReader[*Gadget](mgr, informer.ReaderOptions{Lazy: true, SyncTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(runCtx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	got, err := reader.Get(ctx, informer.Key{Namespace: ns, Name: "a"})
	if err != nil || got.Labels["tier"] != "web" {
		t.Fatalf("Get a = %v, %v", got, err)
	}
	sel, _ := labels.Parse("tier=web")
	if l, err := reader.List(ctx, informer.ListOptions{Namespace: ns, Labels: sel}); err != nil || len(l) != 2 {
		t.Fatalf("List tier=web = %d objects, %v; want 2", len(l), err)
	}
	if l, err := reader.ByIndex(ctx, "tier", "db"); err != nil || len(l) != 1 || l[0].Name != "c" {
		t.Fatalf("ByIndex tier=db = %v, %v", l, err)
	}
	if _, err := reader.Get(ctx, informer.Key{Namespace: ns, Name: "missing"}); !apierrors.IsNotFound(err) {
		t.Fatalf("Get missing = %v, want NotFound", err)
	}
	// A write made through the live client shows in the reader once the
	// watch delivers it.
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "d", Labels: map[string]string{"tier": "db"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubegotest.Eventually(ctx, t, func(ctx context.Context) error {
		_, err := reader.Get(ctx, informer.Key{Namespace: ns, Name: "d"})
		return err
	})

	_, err = unserved.Get(ctx, informer.Key{Namespace: ns, Name: "x"})
	var se *informer.SyncError
	if err == nil || apierrors.IsNotFound(err) || !errors.As(err, &se) {
		t.Fatalf("Get of an unserved resource = %v, want a read error carrying the SyncError (not NotFound)", err)
	}
}
