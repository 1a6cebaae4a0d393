package sharding

import (
	"context"
	"log/slog"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/informer"
)

func TestGuard(t *testing.T) {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	cm := func(labels map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "x", Labels: labels}}
	}
	mine := map[string]string{ShardLabel("r"): "a"}
	draining := map[string]string{ShardLabel("r"): "a", DrainLabel("r"): "true", "keep": "me"}
	for _, tc := range []struct {
		name       string
		inactive   bool
		server     *corev1.ConfigMap // nil: none
		cached     *corev1.ConfigMap // what Get returns; nil: NotFound
		reconciled bool
		labels     map[string]string // the server's labels afterwards
	}{
		{name: "an object of the member is reconciled", server: cm(mine), cached: cm(mine), reconciled: true, labels: mine},
		{name: "nothing is reconciled while the member holds no Lease", inactive: true, server: cm(mine), cached: cm(mine), labels: mine},
		{name: "an object gone from the cache is not reconciled", server: cm(mine), labels: mine},
		{name: "another member's object is not reconciled", server: cm(map[string]string{ShardLabel("r"): "b"}), cached: cm(map[string]string{ShardLabel("r"): "b"}),
			labels: map[string]string{ShardLabel("r"): "b"}},
		{name: "a draining object is acknowledged, not reconciled", server: cm(draining), cached: cm(draining), labels: map[string]string{"keep": "me"}},
		{name: "a drain the sharder withdrew is left alone", server: cm(mine), cached: cm(draining), labels: mine},
		{name: "a drain of an object deleted meanwhile is done", cached: cm(draining)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := []runtime.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "app"}}}
			if tc.server != nil {
				objs = append(objs, tc.server)
			}
			srv := fake.NewServer(fake.Options{}, objs...)
			t.Cleanup(srv.Close)
			c, err := client.NewForConfig(srv.Config(), client.Options{})
			if err != nil {
				t.Fatal(err)
			}
			m, err := NewMember(c, MemberOptions{Ring: "r", Identity: "a", Namespace: "ns", Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			m.active.Store(!tc.inactive)
			reconciled := false
			inner := controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) {
				reconciled = true
				return controller.Result{}, nil
			})
			g, err := m.Guard(inner, GuardOptions{Resource: gvr, Get: func(context.Context, informer.Key) (metav1.Object, error) {
				if tc.cached == nil {
					return nil, apierrors.NewNotFound(gvr.GroupResource(), "x")
				}
				return tc.cached, nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := g.Reconcile(t.Context(), controller.Request{Key: informer.Key{Namespace: "app", Name: "x"}}); err != nil {
				t.Fatal(err)
			}
			if reconciled != tc.reconciled {
				t.Fatalf("reconciled %v, want %v", reconciled, tc.reconciled)
			}
			got, err := client.Typed[*corev1.ConfigMap](c).Namespace("app").Get(t.Context(), "x", metav1.GetOptions{})
			if tc.server == nil {
				if !apierrors.IsNotFound(err) {
					t.Fatalf("got %v, %v; want NotFound", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !equalLabels(got.Labels, tc.labels) {
				t.Fatalf("labels %v, want %v", got.Labels, tc.labels)
			}
		})
	}
}

func TestGuardNeedsItsOptions(t *testing.T) {
	m := &Member{opts: MemberOptions{Ring: "r", Identity: "a"}}
	inner := controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) { return controller.Result{}, nil })
	get := func(context.Context, informer.Key) (metav1.Object, error) { return nil, nil }
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	for name, try := range map[string]func() error{
		"no reconciler": func() error { _, err := m.Guard(nil, GuardOptions{Resource: gvr, Get: get}); return err },
		"no Get":        func() error { _, err := m.Guard(inner, GuardOptions{Resource: gvr}); return err },
		"no Resource":   func() error { _, err := m.Guard(inner, GuardOptions{Get: get}); return err },
	} {
		t.Run(name, func(t *testing.T) {
			if err := try(); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func equalLabels(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
