package fake_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/discovery"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/rest"
)

// TestServesTheDiscoveryClientAndRESTMapper checks the fake against
// kubego's discovery client: version, preferred versions, scope, and a
// custom resource registered after start.
func TestServesTheDiscoveryClientAndRESTMapper(t *testing.T) {
	srv := fake.NewServer(fake.Options{})
	defer srv.Close()
	rc, err := rest.NewClient(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d := discovery.New(rc, discovery.Options{})
	v, err := d.ServerVersion(ctx)
	if err != nil || v.GitVersion == "" {
		t.Fatalf("version %v %v", v, err)
	}
	if err := srv.Register(fake.Resource{Kind: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, Resource: "widgets", Namespaced: true}); err != nil {
		t.Fatal(err)
	}
	m := discovery.NewRESTMapper(d, discovery.MapperOptions{})
	for _, tc := range []struct {
		gk         schema.GroupKind
		resource   string
		version    string
		namespaced bool
	}{
		{schema.GroupKind{Group: "apps", Kind: "Deployment"}, "deployments", "v1", true},
		{schema.GroupKind{Kind: "Node"}, "nodes", "v1", false},
		{schema.GroupKind{Group: "example.com", Kind: "Widget"}, "widgets", "v1", true},
	} {
		mp, err := m.RESTMapping(ctx, tc.gk)
		if err != nil {
			t.Fatalf("%v: %v", tc.gk, err)
		}
		if mp.Resource.Resource != tc.resource || mp.Resource.Version != tc.version || mp.Namespaced != tc.namespaced {
			t.Errorf("%v: %+v", tc.gk, mp)
		}
	}
}
