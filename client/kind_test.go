package client_test

import (
	"errors"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/rest"
)

func TestKindForResourceMapsRegisteredAndBuiltinResources(t *testing.T) {
	rc, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(rc, client.Options{Registry: widgetRegistry()})
	tests := []struct {
		name    string
		gvr     schema.GroupVersionResource
		want    schema.GroupVersionKind
		wantErr bool
	}{
		{name: "a registered resource gives its type's kind", gvr: widgetGVR, want: widgetGVR.GroupVersion().WithKind("Widget")},
		{name: "a built-in resource gives its kind", gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
			want: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}},
		{name: "a core resource gives its kind", gvr: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
			want: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}},
		{name: "an unknown resource is an UnknownResourceError", gvr: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}, wantErr: true},
		{name: "a subresource is not a kind", gvr: schema.GroupVersionResource{Version: "v1", Resource: "pods/status"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.KindForResource(tt.gvr)
			if tt.wantErr {
				var ue *client.UnknownResourceError
				if !errors.As(err, &ue) || !errors.Is(err, client.ErrUnknownType) || ue.Resource != tt.gvr {
					t.Fatalf("KindForResource = %v, %v; want an UnknownResourceError for %v", got, err, tt.gvr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("KindForResource = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestMappingOfResolvesGoTypes(t *testing.T) {
	rc, err := rest.NewClient(&rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	c := client.New(rc, client.Options{Registry: widgetRegistry()})
	tests := []struct {
		name string
		typ  reflect.Type
		want schema.GroupVersionResource
		ok   bool
	}{
		{"a built-in type", reflect.TypeFor[*appsv1.Deployment](), schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, true},
		{"a registered type", reflect.TypeFor[*Widget](), widgetGVR, true},
		{"an unknown type", reflect.TypeFor[*struct{ X int }](), schema.GroupVersionResource{}, false},
		{"unstructured names no resource", reflect.TypeFor[*unstructured.Unstructured](), schema.GroupVersionResource{}, false},
		{"no type", nil, schema.GroupVersionResource{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := c.MappingOf(t.Context(), tt.typ)
			var ue *client.UnknownTypeError
			switch {
			case tt.ok && (err != nil || m.Resource != tt.want):
				t.Fatalf("MappingOf = %v, %v; want %v", m.Resource, err, tt.want)
			case !tt.ok && !errors.As(err, &ue):
				t.Fatalf("MappingOf = %v, %v; want an UnknownTypeError", m.Resource, err)
			}
		})
	}
}
