package informer

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestDropManagedFields(t *testing.T) {
	entry := map[string]any{"manager": "kubectl", "operation": "Update", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:data": map[string]any{}}}
	unstructuredWith := func(md map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}
		if md != nil {
			u.Object["metadata"] = md
		}
		return u
	}
	tests := []struct {
		name string
		obj  Object
	}{
		{"typed object", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}}}},
		{"metadata-only object", &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "a", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}}}},
		{"unstructured object", unstructuredWith(map[string]any{"name": "a", "managedFields": []any{entry}})},
		{"unstructured object without managedFields", unstructuredWith(map[string]any{"name": "a"})},
		{"unstructured object without metadata", unstructuredWith(nil)},
		{"unstructured object with malformed managedFields", unstructuredWith(map[string]any{"name": "a", "managedFields": "not a list"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := tt.obj.GetName()
			dropManagedFields(tt.obj)
			if mf := tt.obj.GetManagedFields(); mf != nil {
				t.Errorf("managedFields left: %v", mf)
			}
			if u, ok := tt.obj.(*unstructured.Unstructured); ok {
				if _, found, _ := unstructured.NestedFieldNoCopy(u.Object, "metadata", "managedFields"); found {
					t.Error("metadata.managedFields key left")
				}
			}
			if tt.obj.GetName() != name {
				t.Errorf("name %q, want %q", tt.obj.GetName(), name)
			}
		})
	}
}
