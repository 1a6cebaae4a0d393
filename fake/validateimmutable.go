package fake

import (
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ConfigMaps and Secrets marked immutable: once `immutable` is set, an
// update may change neither it nor the data, as kube-apiserver
// validates; a Secret's type never changes.

var (
	configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	secretsGVR    = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
)

// immutableData refuses the update of an immutable object that changes
// `immutable` or one of the fields data (absent and empty alike).
func immutableData(u, old map[string]any, data ...string) field.ErrorList {
	if was, _, _ := unstructured.NestedBool(old, "immutable"); !was {
		return nil
	}
	const msg = "field is immutable when `immutable` is set"
	var errs field.ErrorList
	if now, _, _ := unstructured.NestedBool(u, "immutable"); !now {
		errs = append(errs, field.Forbidden(field.NewPath("immutable"), msg))
	}
	for _, f := range data {
		a, _, _ := unstructured.NestedMap(u, f)
		b, _, _ := unstructured.NestedMap(old, f)
		if (len(a) != 0 || len(b) != 0) && !reflect.DeepEqual(a, b) {
			errs = append(errs, field.Forbidden(field.NewPath(f), msg))
		}
	}
	return errs
}

func validateConfigMap(u, old map[string]any) error {
	if old == nil {
		return nil
	}
	return invalid(configMapsGVR.GroupVersion().WithKind("ConfigMap"), u, immutableData(u, old, "data", "binaryData"))
}

func validateSecret(u, old map[string]any) error {
	if old == nil {
		return nil
	}
	var errs field.ErrorList
	t, _, _ := unstructured.NestedString(u, "type")
	if was, _, _ := unstructured.NestedString(old, "type"); t != was {
		errs = append(errs, field.Invalid(field.NewPath("type"), t, "field is immutable"))
	}
	errs = append(errs, immutableData(u, old, "data")...)
	return invalid(secretsGVR.GroupVersion().WithKind("Secret"), u, errs)
}
