package crd_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestIntegrationInstallAndServe(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dc, err := dynamic.NewForConfig(cp.Config(), dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defs, err := crd.Parse([]byte(fooYAML + "\n---\n" + barJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := crd.Install(ctx, dc, defs, crd.InstallOptions{}); err != nil {
		t.Fatalf("Install: %v", err)
	}
	// Served at once: a Foo can be created and read back.
	foo := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "samplecontroller.example.com/v1alpha1", "kind": "Foo",
		"metadata": map[string]any{"name": "example-foo"},
		"spec":     map[string]any{"deploymentName": "example-foo", "replicas": int64(1)},
	}}
	if _, err := dc.Resource(foosGVR).Namespace("default").Create(ctx, foo, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a Foo right after Install: %v", err)
	}
	// The schema is enforced: replicas above the maximum are refused.
	foo.SetName("too-many")
	_ = unstructured.SetNestedField(foo.Object, int64(50), "spec", "replicas")
	if _, err := dc.Resource(foosGVR).Namespace("default").Create(ctx, foo, metav1.CreateOptions{}); err == nil {
		t.Fatal("a Foo violating the schema was accepted")
	}
	// Installing the same definitions again updates them.
	if err := crd.Install(ctx, dc, defs, crd.InstallOptions{}); err != nil {
		t.Fatalf("second Install: %v", err)
	}
}

func TestIntegrationInstallReportsRefusedNames(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dc, err := dynamic.NewForConfig(cp.Config(), dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defs, err := crd.Parse([]byte(fooYAML))
	if err != nil {
		t.Fatal(err)
	}
	if err := crd.Install(ctx, dc, defs, crd.InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	// Another definition in the same group claiming the kind Foo.
	clash := strings.NewReplacer("name: foos.samplecontroller", "name: others.samplecontroller", "plural: foos", "plural: others", "singular: foo", "singular: other").Replace(fooYAML)
	defs, err = crd.Parse([]byte(clash))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = crd.Install(ctx, dc, defs, crd.InstallOptions{})
	var ns *crd.NotServedError
	if !errors.As(err, &ns) || ns.Err != nil || !strings.Contains(ns.Reason, "names not accepted") {
		t.Fatalf("Install of a clashing kind = %v, want a *NotServedError about names, without waiting for the context", err)
	}
	if time.Since(start) > time.Minute {
		t.Fatalf("Install took %s to report refused names", time.Since(start))
	}
}

func TestIntegrationTestenvInstallsCRDs(t *testing.T) {
	cp := testenv.Shared(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	writeFile(t, dir+"/bar.json", barJSON)
	if err := cp.InstallCRDs(ctx, dir); err != nil {
		t.Fatalf("InstallCRDs: %v", err)
	}
	dc, err := dynamic.NewForConfig(cp.Config(), dynamic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bars := schema.GroupVersionResource{Group: "samplecontroller.example.com", Version: "v1", Resource: "bars"}
	if _, err := dc.Resource(bars).List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("bars not served after InstallCRDs: %v", err)
	}
	gizmo := map[string]any{
		"metadata": map[string]any{"name": "gizmos.kubegotest.example.com"},
		"spec": map[string]any{
			"group": "kubegotest.example.com", "scope": "Namespaced",
			"names": map[string]any{"kind": "Gizmo", "plural": "gizmos"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}
	if err := cp.InstallCRDObjects(ctx, gizmo); err != nil {
		t.Fatalf("InstallCRDObjects: %v", err)
	}
	gizmos := schema.GroupVersionResource{Group: "kubegotest.example.com", Version: "v1", Resource: "gizmos"}
	if _, err := dc.Resource(gizmos).Namespace("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("gizmos not served after InstallCRDObjects: %v", err)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
