package client_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// counter counts the requests a rest client sends.
type counter struct {
	n    atomic.Int64
	next http.RoundTripper
}

func (c *counter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

// env is one integration test's clients and namespace.
type env struct {
	cfg   *rest.Config
	rc    *rest.Client
	c     *client.Client
	dyn   *dynamic.Client
	ns    string
	count *counter
}

func setup(t *testing.T, opts client.Options) *env {
	t.Helper()
	cp := testenv.Shared(t)
	e := &env{cfg: cp.Config(), count: &counter{}}
	e.cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { e.count.next = rt; return e.count }
	rc, err := rest.NewClient(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.rc, e.c, e.dyn = rc, client.New(rc, opts), dynamic.New(rc, dynamic.Options{})
	e.ns = "t-" + randomSuffix()
	ctx := context.Background()
	if _, err := client.Typed[*corev1.Namespace](e.c).Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.Typed[*corev1.Namespace](e.c).Delete(context.Background(), e.ns, metav1.DeleteOptions{})
	})
	return e
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// installWidgetCRD installs widgets.<group> (namespaced, with status and
// scale subresources) through the dynamic client and waits until it is
// served.
func installWidgetCRD(t *testing.T, e *env, group string) schema.GroupVersionResource {
	t.Helper()
	ctx := ctxFor(t)
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList", "shortNames": []any{"wd"}},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
					"spec": map[string]any{"type": "object", "properties": map[string]any{
						"size": map[string]any{"type": "integer"}, "replicas": map[string]any{"type": "integer"},
						"tags":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
						"labels": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
						"memory": map[string]any{"x-kubernetes-int-or-string": true, "anyOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}},
					}},
					"status": map[string]any{"type": "object", "properties": map[string]any{
						"ready": map[string]any{"type": "boolean"}, "replicas": map[string]any{"type": "integer"},
					}},
				}}},
				"subresources": map[string]any{"status": map[string]any{}, "scale": map[string]any{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
			}},
		},
	}}
	if _, err := e.dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create CRD: %v", err)
	}
	t.Cleanup(func() {
		_ = e.dyn.Resource(crdGVR).Delete(context.Background(), "widgets."+group, metav1.DeleteOptions{})
	})
	gvr := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "widgets"}
	for {
		_, err := e.dyn.Resource(gvr).Namespace(e.ns).List(ctx, metav1.ListOptions{})
		if err == nil {
			return gvr
		}
		if !apierrors.IsNotFound(err) {
			t.Fatalf("waiting for the CRD: %v", err)
		}
		select {
		case <-ctx.Done():
			t.Fatal("CRD never served")
		case <-time.After(100 * time.Millisecond):
		}
	}
}
