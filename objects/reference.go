package objects

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
)

// ErrNoName is returned by Reference for an object without a name.
var ErrNoName = errors.New("objects: the object has no name")

// Reference returns an ObjectReference to obj (apiVersion, kind,
// namespace, name, uid and resourceVersion), as an Event's regarding
// object or a status field names it. Objects read from a cache or decoded
// into typed structs carry no TypeMeta, so the kind comes from kinds (a
// *client.Client knows built-in kinds and its registry's) unless obj
// names it itself. It returns an error wrapping ErrNoName for an object
// without a name, or kinds' error for a type it cannot map.
func Reference(obj informer.Object, kinds client.KindResolver) (corev1.ObjectReference, error) {
	if obj.GetName() == "" {
		return corev1.ObjectReference{}, fmt.Errorf("%w (%T)", ErrNoName, obj)
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		k, err := kinds.KindOf(obj)
		if err != nil {
			return corev1.ObjectReference{}, fmt.Errorf("objects: reference to %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
		}
		gvk = k
	}
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	return corev1.ObjectReference{
		APIVersion:      apiVersion,
		Kind:            kind,
		Namespace:       obj.GetNamespace(),
		Name:            obj.GetName(),
		UID:             obj.GetUID(),
		ResourceVersion: obj.GetResourceVersion(),
	}, nil
}
