package discovery_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/clock/clocktest"
	"github.com/kubego/kubego/discovery"
)

func TestRESTMapperLookups(t *testing.T) {
	f := &fakeDiscovery{aggregated: true}
	m := discovery.NewRESTMapper(discovery.New(newServer(t, f), discovery.Options{}), discovery.MapperOptions{})
	ctx := context.Background()
	deploy := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	tests := []struct {
		name    string
		partial schema.GroupVersionResource
		want    schema.GroupVersionResource
	}{
		{"plural", schema.GroupVersionResource{Resource: "deployments"}, deploy},
		{"singular", schema.GroupVersionResource{Resource: "deployment"}, deploy},
		{"short name", schema.GroupVersionResource{Resource: "deploy"}, deploy},
		{"resource.group", schema.GroupVersionResource{Resource: "deployments.apps"}, deploy},
		{"explicit older version", schema.GroupVersionResource{Resource: "deployments", Version: "v1beta1"}, deploy.GroupResource().WithVersion("v1beta1")},
		{"core", schema.GroupVersionResource{Resource: "po"}, schema.GroupVersionResource{Version: "v1", Resource: "pods"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mp, err := m.ResourceFor(ctx, tt.partial)
			if err != nil || mp.Resource != tt.want {
				t.Fatalf("ResourceFor(%v) = %v, %v; want %v", tt.partial, mp.Resource, err, tt.want)
			}
		})
	}
	mp, err := m.RESTMapping(ctx, schema.GroupKind{Group: "apps", Kind: "Deployment"})
	if err != nil || mp.Resource != deploy || !mp.Namespaced || mp.Kind.Version != "v1" {
		t.Fatalf("RESTMapping = %+v, %v", mp, err)
	}
	mp, err = m.RESTMapping(ctx, schema.GroupKind{Kind: "Node"})
	if err != nil || mp.Namespaced {
		t.Fatalf("Node mapping %+v, %v", mp, err)
	}
	k, err := m.KindFor(ctx, schema.GroupVersionResource{Resource: "no"})
	if err != nil || k.Kind != "Node" {
		t.Fatalf("KindFor(no) = %v, %v", k, err)
	}
}

func TestRESTMapperRefreshesOnAMissAtMostOncePerInterval(t *testing.T) {
	f := &fakeDiscovery{aggregated: true}
	clock := clocktest.New(time.Unix(1000, 0))
	m := discovery.NewRESTMapper(discovery.New(newServer(t, f), discovery.Options{Clock: clock}), discovery.MapperOptions{MinRefreshInterval: 10 * time.Second})
	ctx := context.Background()
	widget := schema.GroupKind{Group: "example.com", Kind: "Widget"}

	if _, err := m.RESTMapping(ctx, schema.GroupKind{Group: "apps", Kind: "Deployment"}); err != nil {
		t.Fatal(err)
	}
	if n := f.count.Load(); n != 2 {
		t.Fatalf("%d requests after the first lookup, want 2", n)
	}
	// A miss right after the first discovery does not refresh.
	_, err := m.RESTMapping(ctx, widget)
	var nm *discovery.NoMatchError
	if !errors.As(err, &nm) || !errors.Is(err, discovery.ErrNoMatch) {
		t.Fatalf("error %v, want *NoMatchError", err)
	}
	if n := f.count.Load(); n != 2 {
		t.Fatalf("%d requests, want 2 (refresh rate-limited)", n)
	}
	// The CRD is installed; after the interval a miss refreshes and finds it.
	f.crd.Store(true)
	clock.Advance(11 * time.Second)
	mp, err := m.RESTMapping(ctx, widget)
	if err != nil || mp.Resource.Resource != "widgets" {
		t.Fatalf("after refresh: %+v, %v", mp, err)
	}
	if n := f.count.Load(); n != 4 || m.Refreshes() != 2 {
		t.Fatalf("%d requests, %d refreshes; want 4 and 2", n, m.Refreshes())
	}
	// Many misses in a row cost one refresh per interval.
	clock.Advance(11 * time.Second)
	for range 5 {
		_, _ = m.RESTMapping(ctx, schema.GroupKind{Group: "nope", Kind: "Nope"})
	}
	if n := f.count.Load(); n != 6 {
		t.Fatalf("%d requests after 5 misses, want 6", n)
	}
}

func TestConcurrentMissesShareOneRefresh(t *testing.T) {
	f := &fakeDiscovery{aggregated: true}
	clock := clocktest.New(time.Unix(1000, 0))
	m := discovery.NewRESTMapper(discovery.New(newServer(t, f), discovery.Options{Clock: clock}), discovery.MapperOptions{MinRefreshInterval: time.Second})
	ctx := context.Background()
	if _, err := m.RESTMapping(ctx, schema.GroupKind{Group: "apps", Kind: "Deployment"}); err != nil {
		t.Fatal(err)
	}
	f.crd.Store(true)
	clock.Advance(2 * time.Second)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := m.RESTMapping(ctx, schema.GroupKind{Group: "example.com", Kind: "Widget"})
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := f.count.Load(); n != 4 {
		t.Fatalf("%d requests, want 4 (one shared refresh)", n)
	}
}

func TestRESTMapperAsAMetaRESTMapper(t *testing.T) {
	f := &fakeDiscovery{aggregated: true}
	m := discovery.NewRESTMapper(discovery.New(newServer(t, f), discovery.Options{}), discovery.MapperOptions{}).Meta(t.Context())
	deploy := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	if got, err := m.ResourceFor(schema.GroupVersionResource{Resource: "deploy"}); err != nil || got != deploy {
		t.Errorf("ResourceFor(deploy) = %v, %v", got, err)
	}
	if got, err := m.KindsFor(schema.GroupVersionResource{Resource: "deployments"}); err != nil || len(got) != 1 || got[0].Kind != "Deployment" {
		t.Errorf("KindsFor(deployments) = %v, %v", got, err)
	}
	mp, err := m.RESTMapping(schema.GroupKind{Group: "apps", Kind: "Deployment"})
	if err != nil || mp.Resource != deploy || mp.Scope.Name() != meta.RESTScopeNameNamespace {
		t.Errorf("RESTMapping(Deployment) = %+v, %v", mp, err)
	}
	mp, err = m.RESTMapping(schema.GroupKind{Kind: "Node"})
	if err != nil || mp.Scope.Name() != meta.RESTScopeNameRoot {
		t.Errorf("RESTMapping(Node) = %+v, %v", mp, err)
	}
	if s, err := m.ResourceSingularizer("deployments"); err != nil || s != "deployment" {
		t.Errorf("ResourceSingularizer(deployments) = %q, %v", s, err)
	}
	for name, err := range map[string]error{
		"kind": func() error {
			_, err := m.RESTMapping(schema.GroupKind{Group: "nope.example.com", Kind: "Nope"})
			return err
		}(),
		"resource": func() error { _, err := m.ResourceFor(schema.GroupVersionResource{Resource: "nopes"}); return err }(),
	} {
		if !meta.IsNoMatchError(err) {
			t.Errorf("an unknown %s: %v, want a meta no-match error", name, err)
		}
	}
}
