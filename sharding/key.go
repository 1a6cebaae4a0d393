package sharding

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// KeyFunc returns the string an object is hashed by on the Ring: objects
// with equal keys always belong to the same member. kind is the group and
// kind of the sharded resource (the object itself may be metadata only).
// It must be deterministic and depend only on what does not change during
// the object's life (name, namespace, owner), or the object would move
// when it changes.
type KeyFunc func(kind schema.GroupKind, obj metav1.Object) string

// ObjectKey hashes each object on its own: kind, namespace and name.
func ObjectKey(kind schema.GroupKind, obj metav1.Object) string {
	return objectKey(kind, obj.GetNamespace(), obj.GetName())
}

// NamespaceKey puts every object of a namespace on one member. A
// cluster-scoped object is keyed by its name, so a Namespace lands where
// its contents do.
func NamespaceKey(_ schema.GroupKind, obj metav1.Object) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns
	}
	return obj.GetName()
}

// OwnerKey puts an object on its controller's member: an object with a
// controller owner reference is keyed as ObjectKey keys the owner (same
// namespace, the reference's kind and name), any other object as
// ObjectKey keys itself. So an owner sharded by ObjectKey or OwnerKey and
// everything it controls, sharded by OwnerKey, share a member. Owners
// must be namespaced in the owned object's namespace (as Kubernetes
// requires of namespaced owners) or cluster-scoped with their owned
// objects cluster-scoped too.
func OwnerKey(kind schema.GroupKind, obj metav1.Object) string {
	if ref := metav1.GetControllerOfNoCopy(obj); ref != nil {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err == nil {
			return objectKey(schema.GroupKind{Group: gv.Group, Kind: ref.Kind}, obj.GetNamespace(), ref.Name)
		}
	}
	return ObjectKey(kind, obj)
}

func objectKey(kind schema.GroupKind, ns, name string) string {
	return kind.Kind + "." + kind.Group + "/" + ns + "/" + name
}
