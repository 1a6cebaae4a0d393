package kubegotest

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
)

// Events returns the events.k8s.io/v1 Events whose regarding object is obj,
// oldest first: those in obj's namespace, or in every namespace for a
// cluster-scoped obj. An Event matches by UID when both have one, else by
// namespace and name (and kind, when obj's TypeMeta names it). It returns
// the client's errors.
func Events(ctx context.Context, c *client.Client, obj informer.Object) ([]eventsv1.Event, error) {
	lst, err := client.Typed[*eventsv1.Event](c).Namespace(obj.GetNamespace()).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []eventsv1.Event
	for _, ev := range lst.Items {
		if about(obj, &ev.Regarding) {
			out = append(out, *ev)
		}
	}
	slices.SortStableFunc(out, func(a, b eventsv1.Event) int {
		return a.CreationTimestamp.Compare(b.CreationTimestamp.Time)
	})
	return out, nil
}

// CoreEvents returns the same Events in their core/v1 view (the one
// kubectl describe shows; involvedObject is the regarding object), oldest
// first. The API server keeps one store for both views, so an Event
// written through either shows in both.
func CoreEvents(ctx context.Context, c *client.Client, obj informer.Object) ([]corev1.Event, error) {
	lst, err := client.Typed[*corev1.Event](c).Namespace(obj.GetNamespace()).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []corev1.Event
	for _, ev := range lst.Items {
		if about(obj, &ev.InvolvedObject) {
			out = append(out, *ev)
		}
	}
	slices.SortStableFunc(out, func(a, b corev1.Event) int {
		return a.CreationTimestamp.Compare(b.CreationTimestamp.Time)
	})
	return out, nil
}

// about reports whether ref names obj.
func about(obj informer.Object, ref *corev1.ObjectReference) bool {
	if obj.GetUID() != "" && ref.UID != "" {
		return obj.GetUID() == ref.UID
	}
	if kind := obj.GetObjectKind().GroupVersionKind().Kind; kind != "" && ref.Kind != "" && kind != ref.Kind {
		return false
	}
	return ref.Name == obj.GetName() && ref.Namespace == obj.GetNamespace()
}
