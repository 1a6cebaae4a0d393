package client_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/discovery"
	"github.com/kubego/kubego/rest"
	"github.com/kubego/kubego/scheme"
)

var _ client.Mapper = (*discovery.RESTMapper)(nil)

// fakeMapper maps one GroupKind and counts calls.
type fakeMapper struct {
	m     client.Mapping
	calls int
}

func (f *fakeMapper) RESTMapping(_ context.Context, gk schema.GroupKind, _ ...string) (client.Mapping, error) {
	f.calls++
	if gk != f.m.Kind.GroupKind() {
		return client.Mapping{}, &discovery.NoMatchError{What: gk.String()}
	}
	return f.m, nil
}

func TestSchemeTypesResolveThroughTheMapper(t *testing.T) {
	f := &fakeServer{}
	srv := newHTTPServer(t, f)
	s := scheme.New()
	gv := schema.GroupVersion{Group: "example.com", Version: "v1"}
	s.AddKnownTypes(gv, &Widget{})
	rc, err := rest.NewClient(&rest.Config{Host: srv, Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	fm := &fakeMapper{m: client.Mapping{Resource: gv.WithResource("widgets"), Kind: gv.WithKind("Widget"), Namespaced: true}}
	c := client.New(rc, client.Options{Mapper: fm})
	f.respond = func(w http.ResponseWriter, r *http.Request, _ []byte) {
		writeJSON(w, 200, map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}, "spec": map[string]any{"size": 4}})
	}
	w, err := client.Typed[*Widget](c).Namespace("ns").Get(context.Background(), "w", metav1.GetOptions{})
	if err != nil || w.Spec.Size != 4 {
		t.Fatalf("get %v %v", w, err)
	}
	if got := f.requests()[0].Path; got != "/apis/example.com/v1/namespaces/ns/widgets/w" {
		t.Fatalf("path %s", got)
	}
	if fm.calls != 1 {
		t.Fatalf("mapper called %d times", fm.calls)
	}
	// A type the mapper does not know is an UnknownTypeError that wraps
	// the mapper's answer.
	fm.m.Kind.Kind = "Other"
	_, err = client.Typed[*Widget](c).Namespace("ns").Get(context.Background(), "w", metav1.GetOptions{})
	if !errors.Is(err, client.ErrUnknownType) || !errors.Is(err, discovery.ErrNoMatch) {
		t.Fatalf("error %v", err)
	}
}

func TestUnstructuredThroughTypedMapping(t *testing.T) {
	f, c := newFake(t, client.Options{})
	f.respond = func(w http.ResponseWriter, r *http.Request, _ []byte) {
		writeJSON(w, 200, map[string]any{"apiVersion": "v1", "kind": "ConfigMapList", "metadata": map[string]any{"resourceVersion": "3"},
			"items": []any{map[string]any{"metadata": map[string]any{"name": "a"}}}})
	}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	r := client.TypedMapping[*unstructured.Unstructured](c, client.Mapping{Resource: gvr, Kind: gvr.GroupVersion().WithKind("ConfigMap"), Namespaced: true})
	l, err := r.Namespace("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil || len(l.Items) != 1 || l.Items[0].GetName() != "a" || l.Items[0].GetKind() != "ConfigMap" {
		t.Fatalf("list %+v %v", l, err)
	}
	if req := f.requests()[0]; req.Accept != "application/json" {
		t.Fatalf("Accept %q, want JSON for unstructured", req.Accept)
	}
}
