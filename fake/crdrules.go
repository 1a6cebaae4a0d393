package fake

import (
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubego/kubego/internal/celeval"
)

// validateCRD refuses what kube-apiserver refuses of a
// CustomResourceDefinition among what the fake checks: a protected group
// without its approval annotation, and CEL rules
// (x-kubernetes-validations) that do not compile or whose estimated cost
// exceeds kube-apiserver's limits, with its messages. old is the stored
// definition on an update (nil on a create).
func validateCRD(u, old map[string]any) error {
	if err := checkAPIApproval(u, old); err != nil {
		return err
	}
	errs := crdRuleErrors(u, old)
	if len(errs) == 0 {
		return nil
	}
	name, _, _ := unstructured.NestedString(u, "metadata", "name")
	return apierrors.NewInvalid(schema.GroupKind{Group: crdGVR.Group, Kind: "CustomResourceDefinition"}, name, errs)
}

// crdRuleErrors checks the rules of each version's schema
// (internal/celeval.CheckDefinition). Paths are kube-apiserver's: when
// every version has the same schema it keeps one, at
// spec.validation.openAPIV3Schema, else each version's. As kube-apiserver
// does, an update that leaves a version's schema as it was is not held to
// the limit of each expression's cost (only to the schema's total).
func crdRuleErrors(u, old map[string]any) field.ErrorList {
	schemas := versionSchemas(u)
	if len(schemas) == 0 {
		return nil
	}
	oldSchemas := map[string]any{}
	for _, v := range versionSchemas(old) {
		oldSchemas[v.name] = v.schema
	}
	unchanged := func(v versionSchema) bool {
		was, ok := oldSchemas[v.name]
		return ok && reflect.DeepEqual(was, v.schema)
	}
	identical := true
	for _, v := range schemas[1:] {
		identical = identical && reflect.DeepEqual(v.schema, schemas[0].schema)
	}
	if identical {
		sch, _ := schemas[0].schema["openAPIV3Schema"].(map[string]any)
		if sch == nil {
			return nil
		}
		return celeval.CheckDefinition(sch, field.NewPath("spec", "validation", "openAPIV3Schema"), !unchanged(schemas[0])).Errors
	}
	var errs field.ErrorList
	for i, v := range schemas {
		sch, _ := v.schema["openAPIV3Schema"].(map[string]any)
		if sch == nil {
			continue
		}
		at := field.NewPath("spec", "versions").Index(i).Child("schema", "openAPIV3Schema")
		errs = append(errs, celeval.CheckDefinition(sch, at, !unchanged(v)).Errors...)
	}
	return errs
}

// versionSchema is one entry of a definition's spec.versions: its name
// and schema (nil when it has none).
type versionSchema struct {
	name   string
	schema map[string]any
}

func versionSchemas(u map[string]any) []versionSchema {
	if u == nil {
		return nil
	}
	versions, _, _ := unstructured.NestedSlice(u, "spec", "versions")
	var out []versionSchema
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		name, _, _ := unstructured.NestedString(vm, "name")
		sch, _ := vm["schema"].(map[string]any)
		out = append(out, versionSchema{name: name, schema: sch})
	}
	return out
}
