package client

import (
	"context"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// subresource sends in (nil for none) to subresource sub of object name and
// decodes the answer into out (nil to discard it).
func (k core) subresource(ctx context.Context, verb, name, sub string, in, out, opts runtime.Object) error {
	r, _, err := k.request(ctx, verb, "", "", false)
	if err != nil {
		return err
	}
	r = r.Name(name).SubResource(sub).Params(opts)
	if in != nil {
		r = r.Body(in)
	}
	res := r.Do(ctx)
	if out == nil || res.Error() != nil {
		return res.Error()
	}
	return res.Into(out)
}

// GetSubresource reads subresource sub ("status", "scale", …) of the object
// called name into out, which must be a type the rest client can decode
// (a scheme type, or any Go type for JSON).
func (r *Resource[T]) GetSubresource(ctx context.Context, name, sub string, out runtime.Object, opts metav1.GetOptions) error {
	return r.k.subresource(ctx, "GET", name, sub, nil, out, &opts)
}

// CreateSubresource posts in to subresource sub of the object called name
// (eviction, token, binding …) and decodes the answer into out; a nil out
// discards it.
func (r *Resource[T]) CreateSubresource(ctx context.Context, name, sub string, in, out runtime.Object, opts metav1.CreateOptions) error {
	r.k.c.defaultManager(&opts.FieldManager)
	return r.k.subresource(ctx, "POST", name, sub, in, out, &opts)
}

// UpdateSubresource puts in to subresource sub of the object called name
// and decodes the answer into out; a nil out discards it.
func (r *Resource[T]) UpdateSubresource(ctx context.Context, name, sub string, in, out runtime.Object, opts metav1.UpdateOptions) error {
	r.k.c.defaultManager(&opts.FieldManager)
	return r.k.subresource(ctx, "PUT", name, sub, in, out, &opts)
}

// GetScale reads the scale subresource of the object called name
// (Deployments, StatefulSets, ReplicaSets, ReplicationControllers, and CRDs
// that enable it).
func (r *Resource[T]) GetScale(ctx context.Context, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error) {
	out := &autoscalingv1.Scale{}
	if err := r.GetSubresource(ctx, name, "scale", out, opts); err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateScale sets the scale of the object called name. scale's
// resourceVersion, when set, is a precondition.
func (r *Resource[T]) UpdateScale(ctx context.Context, name string, scale *autoscalingv1.Scale, opts metav1.UpdateOptions) (*autoscalingv1.Scale, error) {
	out := &autoscalingv1.Scale{}
	if err := r.UpdateSubresource(ctx, name, "scale", scale, out, opts); err != nil {
		return nil, err
	}
	return out, nil
}
