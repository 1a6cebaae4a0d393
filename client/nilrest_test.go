package client_test

import (
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/discovery"
	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/metadata"
	"github.com/kubego/kubego/openapi"
	"github.com/kubego/kubego/rest"
)

// Clients built over a nil *rest.Client (a program that passed one it
// never built) answer every call with rest.ErrNilClient; none panics.
func TestClientsOverANilRESTClientFailWithATypedError(t *testing.T) {
	ctx := t.Context()
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"client Get", func() error {
			_, err := client.Typed[*corev1.Pod](client.New(nil, client.Options{})).Namespace("ns").Get(ctx, "a", metav1.GetOptions{})
			return err
		}},
		{"client Create", func() error {
			_, err := client.Typed[*appsv1.Deployment](client.New(nil, client.Options{})).Namespace("ns").Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
			return err
		}},
		{"dynamic Get", func() error {
			_, err := dynamic.New(nil, dynamic.Options{}).Resource(deployments).Namespace("ns").Get(ctx, "a", metav1.GetOptions{})
			return err
		}},
		{"metadata Get", func() error {
			_, err := metadata.New(nil, metadata.Options{}).Resource(deployments).Namespace("ns").Get(ctx, "a", metav1.GetOptions{})
			return err
		}},
		{"discovery ServerVersion", func() error {
			_, err := discovery.New(nil, discovery.Options{CacheDir: t.TempDir()}).ServerVersion(ctx)
			return err
		}},
		{"openapi Paths", func() error {
			_, err := openapi.New(nil, openapi.Options{}).Paths(ctx)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, rest.ErrNilClient) {
				t.Fatalf("error = %v, want rest.ErrNilClient", err)
			}
		})
	}
}
