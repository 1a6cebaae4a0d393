package informertest_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/informer/informertest"
)

func TestBackendServesFactories(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pods := informertest.New[*corev1.Pod](informertest.Options{})
		pods.Create(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p"}})
		pods.Create(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "p"}})
		gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
		widgets := informertest.New[*unstructured.Unstructured](informertest.Options{})
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("example.com/v1")
		u.SetKind("Widget")
		u.SetName("w")
		widgets.Create(u)

		src := &informertest.Backend{}
		informertest.Serve(src, pods, informer.Typed, schema.GroupVersionResource{})
		informertest.Serve(src, widgets, informer.Unstructured, gvr)
		f := informer.NewFactory(src, informer.FactoryOptions{})
		inA := mustAcquire(informer.Acquire[*corev1.Pod](f, informer.SharedOptions{Namespace: "a"}))
		dyn := mustAcquire(informer.AcquireResource(f, gvr, informer.SharedOptions{}))
		missing := mustAcquire(informer.Acquire[*corev1.Secret](f, informer.SharedOptions{}))
		ctx, cancel := context.WithCancel(t.Context())
		f.Start(ctx)
		if err := inA.WaitForSync(ctx); err != nil {
			t.Fatal(err)
		}
		if err := dyn.WaitForSync(ctx); err != nil {
			t.Fatal(err)
		}
		if got := inA.Lister().List(nil); len(got) != 1 || got[0].Namespace != "a" {
			t.Fatalf("namespace a informer holds %v", got)
		}
		if _, ok := dyn.Lister().Get("w"); !ok {
			t.Fatal("widget missing")
		}
		// The Backend has no tracker for Secrets: WaitForSync fails fast with
		// the cause once the informer has tried (fake time, so no real wait).
		short, c2 := context.WithTimeout(ctx, time.Minute)
		defer c2()
		if err := missing.WaitForSync(short); !apierrors.IsNotFound(err) {
			t.Fatalf("missing resource: %v", err)
		}
		cancel()
		f.Wait()
	})
}

func TestTracker(t *testing.T) {
	t.Run("pages, resumes from history, expires old versions", func(t *testing.T) {
		tr := informertest.New[*corev1.ConfigMap](informertest.Options{History: 2})
		for _, n := range []string{"a", "b", "c"} {
			tr.Create(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: n}})
		}
		ctx := t.Context()
		p1, err := tr.List(ctx, metav1.ListOptions{Limit: 2})
		if err != nil || len(p1.Items) != 2 || p1.Continue == "" || p1.ResourceVersion != "3" {
			t.Fatalf("page 1 = %+v, %v", p1, err)
		}
		p2, _ := tr.List(ctx, metav1.ListOptions{Limit: 2, Continue: p1.Continue})
		if len(p2.Items) != 1 || p2.Continue != "" || p2.Items[0].Name != "c" {
			t.Fatalf("page 2 = %+v", p2)
		}
		w, _ := tr.Watch(ctx, metav1.ListOptions{ResourceVersion: "2"})
		if e := <-w.ResultChan(); e.Type != watch.Added || e.Object.(*corev1.ConfigMap).Name != "c" {
			t.Fatalf("resume event %v", e)
		}
		w.Stop()
		tr.Create(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "d"}})
		tr.Create(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "e"}})
		w, _ = tr.Watch(ctx, metav1.ListOptions{ResourceVersion: "2"})
		e := <-w.ResultChan()
		if e.Type != watch.Error || !apierrors.IsResourceExpired(apierrors.FromObject(e.Object)) {
			t.Fatalf("old version: %v", e)
		}
	})
}

// mustAcquire is informer.Acquire or AcquireResource for a factory that
// cannot refuse a request (no OneInformerPerType).
func mustAcquire[T informer.Object](inf *informer.Informer[T], err error) *informer.Informer[T] {
	if err != nil {
		panic(err)
	}
	return inf
}
