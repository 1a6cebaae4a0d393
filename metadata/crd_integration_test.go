package metadata_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/metadata"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/testenv"
)

// Custom resources have no protobuf form of their own; the server still
// answers metadata requests for them, in whichever of the offered media
// types it can produce, and the client decodes either.
func TestMetadataOfCustomResources(t *testing.T) {
	cfg := testenv.Shared(t).Config()
	rec := &contentTypes{seen: map[string]string{}}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec }
	rc, err := rest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dyn := dynamic.New(rc, dynamic.Options{})
	crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	group := "meta" + time.Now().Format("150405.000000")[7:] + ".example.com"
	name := "gadgets." + group
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
			}},
		},
	}}
	if _, err := dyn.Resource(crdGVR).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dyn.Resource(crdGVR).Delete(context.Background(), name, metav1.DeleteOptions{}) })
	gvr := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "gadgets"}
	gadget := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/v1", "kind": "Gadget",
		"metadata": map[string]any{"name": "g", "labels": map[string]any{"a": "b"}},
	}}
	for {
		_, err := dyn.Resource(gvr).Namespace("default").Create(ctx, gadget, metav1.CreateOptions{})
		if err == nil {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("creating a gadget: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	gadgets := metadata.New(rc, metadata.Options{}).Resource(gvr).Namespace("default")
	list, err := gadgets.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Kind != "PartialObjectMetadataList" || list.Items[0].Labels["a"] != "b" {
		t.Fatalf("list %+v %v", list, err)
	}
	got, err := gadgets.Get(ctx, "g", metav1.GetOptions{})
	if err != nil || got.Kind != "PartialObjectMetadata" || got.Labels["a"] != "b" {
		t.Fatalf("get %+v %v", got, err)
	}
	w, err := gadgets.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := gadgets.Delete(ctx, "g", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ev := <-w.ResultChan()
	if o, ok := ev.Object.(*metav1.PartialObjectMetadata); !ok || ev.Type != watch.Deleted || o.Name != "g" || o.Kind != "PartialObjectMetadata" {
		t.Fatalf("event %v %#v (%v)", ev.Type, ev.Object, w.Err())
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for req, ct := range rec.seen {
		if strings.Contains(req, "/"+group+"/") {
			t.Logf("%s answered %s", req, ct)
		}
	}
}
