package discovery_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/discovery"
	"github.com/kubego/kubego/rest"
)

func Example() {
	srv := httptest.NewServer(&fakeDiscovery{aggregated: true})
	defer srv.Close()
	rc, err := rest.NewClient(&rest.Config{Host: srv.URL})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	d := discovery.New(rc, discovery.Options{})
	snap, err := d.Snapshot(ctx)
	if err != nil {
		fmt.Println(err) // a *discovery.PartialError still comes with a snapshot
	}
	for _, g := range snap.Groups {
		fmt.Printf("group %q preferred %s\n", g.Name, g.Preferred().Version)
	}

	mapper := discovery.NewRESTMapper(d, discovery.MapperOptions{})
	m, err := mapper.ResourceFor(ctx, schema.GroupVersionResource{Resource: "deploy"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Resource, m.Kind.Kind, m.Namespaced)
	// Output:
	// group "" preferred v1
	// group "apps" preferred v1
	// apps/v1, Resource=deployments Deployment true
}
