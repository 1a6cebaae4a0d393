package clientset_test

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/client/clientset"
	"github.com/kubego/kubego/rest"
)

func TestAccessorsReturnTheGenericClients(t *testing.T) {
	rc, err := rest.NewClient(&rest.Config{Host: "https://example.invalid"})
	if err != nil {
		t.Fatal(err)
	}
	cs := clientset.New(client.New(rc, client.Options{}))
	ctx := context.Background()
	tests := []struct {
		name       string
		mapping    func() (client.Mapping, error)
		resource   string
		namespaced bool
	}{
		{"pods", func() (client.Mapping, error) { return cs.CoreV1().Pods("ns").Mapping(ctx) }, "pods", true},
		{"nodes", func() (client.Mapping, error) { return cs.CoreV1().Nodes().Mapping(ctx) }, "nodes", false},
		{"deployments", func() (client.Mapping, error) { return cs.AppsV1().Deployments("ns").Mapping(ctx) }, "deployments", true},
		{"leases", func() (client.Mapping, error) { return cs.CoordinationV1().Leases("ns").Mapping(ctx) }, "leases", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := tt.mapping()
			if err != nil || m.Resource.Resource != tt.resource || m.Namespaced != tt.namespaced {
				t.Fatalf("mapping %+v, %v", m, err)
			}
		})
	}
	var _ *client.Resource[*appsv1.Deployment] = cs.AppsV1().Deployments("")
	var _ *client.Resource[*corev1.Pod] = cs.CoreV1().Pods("")
}
