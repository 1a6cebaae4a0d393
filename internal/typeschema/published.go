package typeschema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/kubego/kubego/internal/openapicapture"
)

// publishedDocs decodes, on first use of each, the models of every
// captured v3 document of kube-apiserver. It is a function of the embedded
// capture alone and never changes once built (decoded documents are only
// read), so it is shared by every build.
var publishedDocs = sync.OnceValue(func() map[string]func() map[string]map[string]any {
	out := map[string]func() map[string]map[string]any{}
	for _, key := range openapicapture.V3Keys() {
		out[key] = sync.OnceValue(func() map[string]map[string]any {
			data, ok := openapicapture.Entry("v3/" + key + ".json")
			if !ok {
				return nil
			}
			var d struct {
				Components struct {
					Schemas map[string]map[string]any `json:"schemas"`
				} `json:"components"`
			}
			if json.Unmarshal(data, &d) != nil {
				return nil
			}
			return d.Components.Schemas
		})
	}
	return out
})

// modelName is the name kube-apiserver gives the model of Go type t
// ("io.k8s.api.core.v1.PodSpec"), or "" for a type outside k8s.io/api and
// k8s.io/apimachinery.
func modelName(t reflect.Type) string {
	pkg := t.PkgPath()
	if !strings.HasPrefix(pkg, "k8s.io/api/") && !strings.HasPrefix(pkg, "k8s.io/apimachinery/") {
		return ""
	}
	return "io.k8s." + strings.ReplaceAll(strings.TrimPrefix(pkg, "k8s.io/"), "/", ".") + "." + t.Name()
}

// lookupModel finds a model in the captured documents: api/v1 first (it
// holds the core and meta models), then the documents of the model's
// group, then the rest. ok is false when no document has it.
func lookupModel(name string) (map[string]any, bool) {
	docs := publishedDocs()
	group := ""
	if rest, ok := strings.CutPrefix(name, "io.k8s.api."); ok {
		group, _, _ = strings.Cut(rest, ".")
	}
	if m, ok := docs["api/v1"]()[name]; ok {
		return m, true
	}
	keys := publishedKeys()
	for _, pass := range []bool{true, false} {
		for _, k := range keys {
			if k == "api/v1" || (group != "" && strings.HasPrefix(k, "apis/"+group)) != pass {
				continue
			}
			if m, ok := docs[k]()[name]; ok {
				return m, true
			}
		}
	}
	return nil, false
}

// publishedKeys are the keys of publishedDocs, sorted.
var publishedKeys = sync.OnceValue(func() []string {
	keys := openapicapture.V3Keys()
	slices.Sort(keys)
	return keys
})

const refPrefix = "#/components/schemas/"

// quantityPattern is the grammar of a resource.Quantity's string form.
const quantityPattern = `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`

// publishedSchema converts the model kube-apiserver publishes under name to
// the structural form a CustomResourceDefinition holds: references
// inlined, int-or-string values (IntOrString, Quantity) as
// x-kubernetes-int-or-string, free-form objects (FieldsV1, RawExtension)
// as x-kubernetes-preserve-unknown-fields, the extensions a definition
// cannot hold (patch strategies, unions, group-version-kinds) dropped, and
// the defaults that only restate a Go zero value ({}, "", 0, false)
// dropped. Other defaults stay (a list-map key such as a port's protocol
// needs its default). visiting holds the models being converted, to refuse
// a recursive one.
func publishedSchema(name string, visiting map[string]bool) (*Schema, error) {
	m, ok := lookupModel(name)
	if !ok {
		return nil, fmt.Errorf("kube-apiserver publishes no model %s", name)
	}
	desc, _ := m["description"].(string)
	switch name {
	case "io.k8s.apimachinery.pkg.util.intstr.IntOrString":
		return &Schema{Description: desc, IntOrString: true, AnyOf: []*Schema{{Type: "integer"}, {Type: "string"}}}, nil
	case "io.k8s.apimachinery.pkg.api.resource.Quantity":
		return &Schema{Description: desc, IntOrString: true, AnyOf: []*Schema{{Type: "integer"}, {Type: "string"}}, Pattern: quantityPattern}, nil
	case "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1", "io.k8s.apimachinery.pkg.runtime.RawExtension":
		return &Schema{Description: desc, Type: "object", PreserveUnknownFields: true}, nil
	}
	if visiting[name] {
		return nil, fmt.Errorf("model %s is recursive", name)
	}
	visiting[name] = true
	defer delete(visiting, name)
	s, err := convertPublished(m, visiting)
	if err != nil {
		return nil, err
	}
	if len(visiting) == 1 {
		dropZeroDefaults(s, false, nil)
	}
	return s, nil
}

// droppedKeys are the keys of a published schema a definition does not
// hold.
var droppedKeys = []string{"x-kubernetes-group-version-kind", "x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key", "x-kubernetes-unions"}

func convertPublished(m map[string]any, visiting map[string]bool) (*Schema, error) {
	ref, _ := m["$ref"].(string)
	if all, ok := m["allOf"].([]any); ok {
		if len(all) != 1 {
			return nil, fmt.Errorf("allOf of %d schemas", len(all))
		}
		inner, _ := all[0].(map[string]any)
		ref, _ = inner["$ref"].(string)
		if ref == "" {
			return nil, fmt.Errorf("allOf without a reference")
		}
	}
	var s *Schema
	if ref != "" {
		name, ok := strings.CutPrefix(ref, refPrefix)
		if !ok {
			return nil, fmt.Errorf("reference %q", ref)
		}
		var err error
		if s, err = publishedSchema(name, visiting); err != nil {
			return nil, err
		}
	} else {
		s = &Schema{}
	}
	for k, v := range m {
		var err error
		switch k {
		case "$ref", "allOf":
		case "description":
			s.Description, _ = v.(string)
		case "type":
			s.Type, _ = v.(string)
		case "format":
			s.Format, _ = v.(string)
		case "default":
			s.Default = v
		case "enum":
			s.Enum, _ = v.([]any)
		case "required":
			for _, r := range v.([]any) {
				s.Required = append(s.Required, r.(string))
			}
		case "items":
			s.Items, err = convertPublished(v.(map[string]any), visiting)
		case "additionalProperties":
			sub, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("additionalProperties %v", v)
			}
			s.AdditionalProperties, err = convertPublished(sub, visiting)
		case "properties":
			s.Properties = map[string]*Schema{}
			for name, p := range v.(map[string]any) {
				if s.Properties[name], err = convertPublished(p.(map[string]any), visiting); err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
			}
		case "x-kubernetes-list-type":
			s.ListType, _ = v.(string)
		case "x-kubernetes-list-map-keys":
			for _, r := range v.([]any) {
				s.ListMapKeys = append(s.ListMapKeys, r.(string))
			}
		case "x-kubernetes-map-type":
			s.MapType, _ = v.(string)
		default:
			if !slices.Contains(droppedKeys, k) {
				return nil, fmt.Errorf("unexpected key %q in a published schema", k)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
	}
	return s, nil
}

// dropZeroDefaults removes from a converted published schema the
// defaults that only restate a Go zero value, except on the key fields of
// map lists (keep), which kube-apiserver requires to be required or
// defaulted; keys are the list-map keys of the list s is the items of.
func dropZeroDefaults(s *Schema, keep bool, keys []string) {
	if s == nil {
		return
	}
	if !keep && s.Default != nil && zeroJSON(s.Default) {
		s.Default = nil
	}
	for name, p := range s.Properties {
		dropZeroDefaults(p, slices.Contains(keys, name) && !slices.Contains(s.Required, name), nil)
	}
	dropZeroDefaults(s.Items, false, s.ListMapKeys)
	dropZeroDefaults(s.AdditionalProperties, false, nil)
}

// zeroJSON reports whether v is the JSON form of a Go zero value.
func zeroJSON(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	case string:
		return t == ""
	case float64:
		return t == 0
	case bool:
		return !t
	case nil:
		return true
	}
	return false
}
