package rest

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Every request started from a nil *Client fails with ErrNilClient, typed,
// whatever its verb and however it is sent; nothing panics.
func TestNilClientRequestsFailWithATypedError(t *testing.T) {
	var c *Client
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		send func() error
	}{
		{"Do", func() error { return c.Get().Resource("pods").Namespace("ns").Name("a").Do(ctx).Into(&corev1.Pod{}) }},
		{"DoRaw", func() error { _, err := c.Post().Resource("pods").Body(&corev1.Pod{}).DoRaw(ctx); return err }},
		{"Stream", func() error { _, err := c.Get().Resource("pods").Stream(ctx); return err }},
		{"Watch", func() error {
			_, err := c.Get().Resource("pods").Watch(ctx, func() runtime.Object { return &corev1.Pod{} })
			return err
		}},
		{"Upgrade", func() error {
			_, _, err := c.Get().Resource("pods").Name("a").SubResource("exec").Upgrade(ctx)
			return err
		}},
		{"Patch", func() error {
			return c.Patch("application/merge-patch+json").Resource("pods").Name("a").Do(ctx).Error()
		}},
		{"Delete", func() error { return c.Delete().Resource("pods").Name("a").Do(ctx).Error() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.send()
			if !errors.Is(err, ErrNilClient) || !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("error = %v, want ErrNilClient wrapped with ErrInvalidRequest", err)
			}
		})
	}
	if c.Scheme() == nil || c.FieldManager() != "kubego" || c.UserAgent() != "" {
		t.Errorf("nil client: Scheme %v, FieldManager %q, UserAgent %q", c.Scheme(), c.FieldManager(), c.UserAgent())
	}
	if kinds := c.KindsOf(&corev1.Pod{}); len(kinds) != 1 || kinds[0].Kind != "Pod" {
		t.Errorf("nil client: KindsOf(Pod) = %v", kinds)
	}
	c.CloseIdleConnections()
}
