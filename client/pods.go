package client

import (
	"context"
	"io"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Evict asks the server to evict the pod called name through the eviction
// subresource, which honours PodDisruptionBudgets: a budget that forbids
// the eviction is an apierrors.IsTooManyRequests error. opts may carry
// preconditions and a grace period.
func Evict(ctx context.Context, pods *Resource[*corev1.Pod], name string, opts metav1.DeleteOptions) error {
	ns := pods.k.ns
	ev := &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Name: name, Namespace: ns},
		DeleteOptions: &opts,
	}
	return pods.k.subresource(ctx, "POST", name, "eviction", ev, nil, nil)
}

// Logs streams the log of the pod called name. The caller must close the
// returned reader; cancelling ctx ends the stream (use it with
// opts.Follow).
func Logs(ctx context.Context, pods *Resource[*corev1.Pod], name string, opts corev1.PodLogOptions) (io.ReadCloser, error) {
	r, _, err := pods.k.request(ctx, "GET", "", "", false)
	if err != nil {
		return nil, err
	}
	return r.Name(name).SubResource("log").Params(&opts).Stream(ctx)
}
