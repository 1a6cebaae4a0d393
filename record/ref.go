package record

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// objectKey identifies an object for aggregation and the spam limit. It
// leaves out the resourceVersion, which changes with every update of the
// object.
type objectKey struct {
	apiVersion, kind, namespace, name, uid string
}

func keyOf(ref *corev1.ObjectReference) objectKey {
	return objectKey{ref.APIVersion, ref.Kind, ref.Namespace, ref.Name, string(ref.UID)}
}

// reference is the inverse of keyOf, given what the key leaves out.
func (k objectKey) reference(resourceVersion, fieldPath string) corev1.ObjectReference {
	return corev1.ObjectReference{
		APIVersion: k.apiVersion, Kind: k.kind, Namespace: k.namespace, Name: k.name, UID: types.UID(k.uid),
		ResourceVersion: resourceVersion, FieldPath: fieldPath,
	}
}

// reference describes obj. A *corev1.ObjectReference is taken as it is;
// any other object must have metadata, and a kind known from its TypeMeta,
// Options.Kinds.
func (r *Recorder) reference(field string, obj runtime.Object) (corev1.ObjectReference, error) {
	if obj == nil || isNilPointer(obj) {
		return corev1.ObjectReference{}, &InvalidEventError{Field: field, Reason: "object is nil"}
	}
	if ref, ok := obj.(*corev1.ObjectReference); ok {
		if ref.Kind == "" || ref.Name == "" {
			return corev1.ObjectReference{}, &InvalidEventError{Field: field, Reason: "object reference needs a kind and a name"}
		}
		return *ref, nil
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return corev1.ObjectReference{}, &InvalidEventError{Field: field, Reason: "object has no metadata", Err: err}
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Empty() {
		k, err := r.opts.Kinds.KindOf(obj)
		if err != nil {
			return corev1.ObjectReference{}, &InvalidEventError{Field: field, Reason: "kind of " + reflect.TypeOf(obj).String() + " is unknown", Err: err}
		}
		gvk = k
	}
	if acc.GetName() == "" {
		return corev1.ObjectReference{}, &InvalidEventError{Field: field, Reason: "object has no name"}
	}
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	return corev1.ObjectReference{
		APIVersion:      apiVersion,
		Kind:            kind,
		Namespace:       acc.GetNamespace(),
		Name:            acc.GetName(),
		UID:             acc.GetUID(),
		ResourceVersion: acc.GetResourceVersion(),
	}, nil
}

func isNilPointer(obj runtime.Object) bool {
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
