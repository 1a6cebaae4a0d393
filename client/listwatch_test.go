package client_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/scheme"
)

func podList(w http.ResponseWriter, r *http.Request, _ []byte) {
	writeJSON(w, 200, map[string]any{"apiVersion": "v1", "kind": "PodList", "metadata": map[string]any{"resourceVersion": "42", "continue": "next"},
		"items": []any{map[string]any{"metadata": map[string]any{"name": "p1", "namespace": "ns"}}}})
}

func TestSourceServesEachForm(t *testing.T) {
	podsGVR := corev1.SchemeGroupVersion.WithResource("pods")
	tests := []struct {
		name     string
		target   informer.Target
		wantType reflect.Type
		wantPath string
		accept   string
	}{
		{"typed", informer.Target{Type: reflect.TypeFor[*corev1.Pod](), Form: informer.Typed, Namespace: "ns"}, reflect.TypeFor[*corev1.Pod](), "/api/v1/namespaces/ns/pods", ""},
		{"unstructured", informer.Target{Type: reflect.TypeFor[*unstructured.Unstructured](), Form: informer.Unstructured, Resource: podsGVR}, reflect.TypeFor[*unstructured.Unstructured](), "/api/v1/pods", "application/json"},
		{"metadata", informer.Target{Type: reflect.TypeFor[*metav1.PartialObjectMetadata](), Form: informer.Metadata, Resource: podsGVR, Namespace: "ns"}, reflect.TypeFor[*metav1.PartialObjectMetadata](), "/api/v1/namespaces/ns/pods", client.AcceptMetadataList},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c := newFake(t, client.Options{})
			f.respond = podList
			if tt.name == "metadata" {
				f.respond = func(w http.ResponseWriter, r *http.Request, _ []byte) {
					writeJSON(w, 200, map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadataList", "metadata": map[string]any{"resourceVersion": "42", "continue": "next"},
						"items": []any{map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": map[string]any{"name": "p1", "namespace": "ns"}}}})
				}
			}
			var src informer.Backend = c
			lw, err := src.ListerWatcher(context.Background(), tt.target)
			if err != nil {
				t.Fatal(err)
			}
			res, err := lw.List(context.Background(), metav1.ListOptions{Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Items) != 1 || reflect.TypeOf(res.Items[0]) != tt.wantType || res.Items[0].GetName() != "p1" || res.ResourceVersion != "42" || res.Continue != "next" {
				t.Fatalf("list %+v", res)
			}
			req := f.requests()[0]
			if req.Path != tt.wantPath || req.Query != "limit=5" {
				t.Errorf("request %s?%s, want %s?limit=5", req.Path, req.Query, tt.wantPath)
			}
			if tt.accept != "" && req.Accept != tt.accept {
				t.Errorf("Accept %q, want %q", req.Accept, tt.accept)
			}
		})
	}
}

func TestResourceListerWatcher(t *testing.T) {
	f, c := newFake(t, client.Options{})
	f.respond = podList
	var lw informer.ListerWatcher[*corev1.Pod] = client.Typed[*corev1.Pod](c).Namespace("ns").ListerWatcher()
	res, err := lw.List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 || res.Items[0].Name != "p1" {
		t.Fatalf("list %+v", res)
	}
}

func TestResourceListerWatcherRefusesItemsOfAnotherType(t *testing.T) {
	f, c := newFake(t, client.Options{})
	f.respond = func(w http.ResponseWriter, r *http.Request, _ []byte) {
		writeJSON(w, 200, map[string]any{"apiVersion": "v1", "kind": "ConfigMapList", "metadata": map[string]any{"resourceVersion": "3"},
			"items": []any{map[string]any{"metadata": map[string]any{"name": "a"}}}})
	}
	// A mapping that names another kind than T: the items decode as
	// ConfigMaps, which a Pod ListerWatcher must not drop silently (the
	// informer would take every Pod for deleted).
	gvr := corev1.SchemeGroupVersion.WithResource("configmaps")
	m := client.Mapping{Resource: gvr, Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Namespaced: true}
	r := client.TypedMapping[*corev1.Pod](c, m)
	res, err := r.Namespace("ns").ListerWatcher().List(context.Background(), metav1.ListOptions{})
	// Without a scheme the client cannot make ConfigMaps: it refuses the
	// list before decoding it.
	if !errors.Is(err, informer.ErrUnexpectedType) {
		t.Fatalf("List = %+v, %v; want an error wrapping informer.ErrUnexpectedType", res, err)
	}

	// With the scheme the items decode as ConfigMaps, refused by type.
	f2, c2 := newFakeScheme(t, client.Options{}, scheme.Default())
	f2.respond = f.respond
	r = client.TypedMapping[*corev1.Pod](c2, m)
	res, err = r.Namespace("ns").ListerWatcher().List(context.Background(), metav1.ListOptions{})
	var te *informer.TypeError
	if !errors.As(err, &te) || te.Got != reflect.TypeFor[*corev1.ConfigMap]() || te.Want != reflect.TypeFor[*corev1.Pod]() {
		t.Fatalf("List = %+v, %v; want an *informer.TypeError", res, err)
	}
}
