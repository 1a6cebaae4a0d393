package informer

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// fromList converts a decoded list object (*corev1.PodList,
// *unstructured.UnstructuredList, *metav1.PartialObjectMetadataList, a CRD's
// list type, ...) to a ListResult, for adapters that decode lists without
// knowing the Go type at compile time. Items point into the list's Items
// slice; nothing is copied. An item without object metadata yields a
// *[TypeError].
func fromList(list runtime.Object) (ListResult[Object], error) {
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return ListResult[Object]{}, fmt.Errorf("informer: %T is not a list: %w", list, err)
	}
	raw, err := meta.ExtractList(list)
	if err != nil {
		return ListResult[Object]{}, fmt.Errorf("informer: extracting items of %T: %w", list, err)
	}
	out := ListResult[Object]{ResourceVersion: lm.GetResourceVersion(), Continue: lm.GetContinue(), Items: make([]Object, len(raw))}
	for i, r := range raw {
		o, ok := r.(Object)
		if !ok {
			return ListResult[Object]{}, &TypeError{Want: reflect.TypeFor[Object](), Got: reflect.TypeOf(r)}
		}
		out.Items[i] = o
	}
	return out, nil
}
