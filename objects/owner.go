package objects

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
)

// SetControllerReference makes owner the controller of obj: it adds to
// obj's ownerReferences a reference to owner with controller and
// blockOwnerDeletion set, or updates the reference obj already has to that
// owner (same group, kind and name). The owner's apiVersion and kind come
// from kinds. Only obj is modified.
//
// It returns an *AlreadyOwnedError when obj already has a controller
// reference to another owner; an error wrapping ErrInvalidOwner for an
// owner without name or UID, or a namespaced owner of a cluster-scoped
// object or of an object in another namespace; or the resolver's error.
func SetControllerReference(owner, obj informer.Object, kinds client.KindResolver) error {
	ref, err := referenceTo(owner, obj, kinds)
	if err != nil {
		return err
	}
	yes := true
	ref.Controller, ref.BlockOwnerDeletion = &yes, &yes
	if cur := metav1.GetControllerOfNoCopy(obj); cur != nil && !sameOwner(*cur, ref) {
		return &AlreadyOwnedError{Namespace: obj.GetNamespace(), Name: obj.GetName(), Owner: *cur}
	}
	upsert(obj, ref)
	return nil
}

// SetOwnerReference adds to obj's ownerReferences a reference to owner
// that does not make it obj's controller, or updates the reference obj
// already has to that owner (keeping its controller and
// blockOwnerDeletion). The garbage collector deletes obj once all its
// owners are gone. It returns the errors of SetControllerReference, except
// *AlreadyOwnedError.
func SetOwnerReference(owner, obj informer.Object, kinds client.KindResolver) error {
	ref, err := referenceTo(owner, obj, kinds)
	if err != nil {
		return err
	}
	for _, cur := range obj.GetOwnerReferences() {
		if sameOwner(cur, ref) {
			ref.Controller, ref.BlockOwnerDeletion = cur.Controller, cur.BlockOwnerDeletion
		}
	}
	upsert(obj, ref)
	return nil
}

// referenceTo returns a plain reference to owner, checking that obj may
// have it.
func referenceTo(owner, obj informer.Object, kinds client.KindResolver) (metav1.OwnerReference, error) {
	if owner.GetName() == "" || owner.GetUID() == "" {
		return metav1.OwnerReference{}, fmt.Errorf("objects: %w: owner %q has no name or no UID (read it from the server first)", ErrInvalidOwner, owner.GetName())
	}
	if ns := owner.GetNamespace(); ns != "" {
		switch obj.GetNamespace() {
		case "":
			return metav1.OwnerReference{}, fmt.Errorf("objects: %w: cluster-scoped %s cannot have the namespaced owner %s/%s", ErrInvalidOwner, obj.GetName(), ns, owner.GetName())
		case ns:
		default:
			return metav1.OwnerReference{}, fmt.Errorf("objects: %w: %s/%s cannot have an owner in namespace %s", ErrInvalidOwner, obj.GetNamespace(), obj.GetName(), ns)
		}
	}
	gvk, err := kinds.KindOf(owner)
	if err != nil {
		return metav1.OwnerReference{}, fmt.Errorf("objects: kind of owner %s: %w", owner.GetName(), err)
	}
	return metav1.OwnerReference{
		APIVersion: gvk.GroupVersion().String(),
		Kind:       gvk.Kind,
		Name:       owner.GetName(),
		UID:        owner.GetUID(),
	}, nil
}

// sameOwner reports whether two references name the same owner: same
// group, kind and name (the version may differ).
func sameOwner(a, b metav1.OwnerReference) bool {
	ga, errA := schema.ParseGroupVersion(a.APIVersion)
	gb, errB := schema.ParseGroupVersion(b.APIVersion)
	return errA == nil && errB == nil && ga.Group == gb.Group && a.Kind == b.Kind && a.Name == b.Name
}

// upsert replaces obj's reference to ref's owner with ref, or appends it.
func upsert(obj metav1.Object, ref metav1.OwnerReference) {
	refs := append([]metav1.OwnerReference(nil), obj.GetOwnerReferences()...)
	for i := range refs {
		if sameOwner(refs[i], ref) {
			refs[i] = ref
			obj.SetOwnerReferences(refs)
			return
		}
	}
	obj.SetOwnerReferences(append(refs, ref))
}
