package fake

import (
	"encoding/json"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/validation/spec"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/kubego/kubego/internal/openapicapture"
)

// modelSchema is the structured-merge-diff schema of the models of one
// OpenAPI v3 document, converted as kube-apiserver converts the models it
// merges server-side apply with (kube-openapi's schemaconv), and the model
// of each kind the document names. It is read-only once built and safe for
// concurrent use.
type modelSchema struct {
	parser *typed.Parser
	kinds  map[schema.GroupVersionKind]string // model name by x-kubernetes-group-version-kind
}

func newModelSchema(models map[string]*spec.Schema) (*modelSchema, error) {
	sch, err := schemaconv.ToSchemaFromOpenAPI(models, false)
	if err != nil {
		return nil, fmt.Errorf("fake: converting OpenAPI models: %w", err)
	}
	ms := &modelSchema{
		parser: &typed.Parser{Schema: smdschema.Schema{Types: sch.Types}},
		kinds:  map[schema.GroupVersionKind]string{},
	}
	for name, m := range models {
		list, _ := m.Extensions["x-kubernetes-group-version-kind"].([]any)
		for _, e := range list {
			g, _ := e.(map[string]any)
			group, _ := g["group"].(string)
			version, _ := g["version"].(string)
			kind, _ := g["kind"].(string)
			if kind != "" {
				ms.kinds[schema.GroupVersionKind{Group: group, Version: version, Kind: kind}] = name
			}
		}
	}
	return ms, nil
}

// converter returns the type converter of kind gvk; ok is false when the
// document has no model of that kind.
func (ms *modelSchema) converter(gvk schema.GroupVersionKind) (tc managedfields.TypeConverter, ok bool) {
	name, ok := ms.kinds[gvk]
	if !ok {
		return nil, false
	}
	return &parsedConverter{parser: ms.parser, root: name}, true
}

// documentModels reads the models (components.schemas) of a v3 document.
func documentModels(doc []byte) (map[string]*spec.Schema, error) {
	var d struct {
		Components struct {
			Schemas map[string]*spec.Schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("fake: reading OpenAPI models: %w", err)
	}
	return d.Components.Schemas, nil
}

// capturedModels holds, by index key ("api/v1", "apis/apps/v1"), the
// schema of each captured v3 document, built on first use. It is shared by
// every Server and never changes once built: it is a function of the
// embedded capture alone, kept because building one (inflating and
// decoding a document of up to a few megabytes, converting every model)
// costs far more than a write.
var capturedModels = sync.OnceValue(func() map[string]func() (*modelSchema, error) {
	out := map[string]func() (*modelSchema, error){}
	for _, key := range openapicapture.V3Keys() {
		name := "v3/" + key + ".json"
		out[key] = sync.OnceValues(func() (*modelSchema, error) {
			data, ok := capturedEntry(name)
			if !ok {
				return nil, fmt.Errorf("fake: no captured %s", name)
			}
			models, err := documentModels(data)
			if err != nil {
				return nil, err
			}
			return newModelSchema(models)
		})
	}
	return out
})

// builtinConverter returns the type converter of a built-in kind from the
// captured v3 document of its group-version; ok is false when there is no
// such document or it has no model of the kind.
func builtinConverter(gvk schema.GroupVersionKind) (tc managedfields.TypeConverter, ok bool) {
	key := "apis/" + gvk.Group + "/" + gvk.Version
	if gvk.Group == "" {
		key = "api/" + gvk.Version
	}
	build, ok := capturedModels()[key]
	if !ok {
		return nil, false
	}
	ms, err := build()
	if err != nil {
		return nil, false
	}
	return ms.converter(gvk)
}

// customConverter returns the type converter of a custom resource version
// with a schema: the models of the v3 document kube-apiserver builds for it
// (the openAPIV3Schema with apiVersion, kind and metadata added, metadata
// referring to ObjectMeta's model), as kube-apiserver merges custom
// resources of a structural schema. x-kubernetes-list-type,
// x-kubernetes-list-map-keys and x-kubernetes-map-type are honoured, and a
// subtree under x-kubernetes-preserve-unknown-fields is deduced, and an
// object of x-kubernetes-embedded-resource gets apiVersion, kind and
// ObjectMeta's model for metadata, as kube-apiserver adds them.
func customConverter(res *resource) (managedfields.TypeConverter, error) {
	template, ok := capturedEntry("crd-template.json")
	if !ok {
		return nil, fmt.Errorf("fake: no captured template document")
	}
	// crdDocument takes the schema over: give it a private copy.
	data, err := json.Marshal(res.schema)
	if err != nil {
		return nil, err
	}
	var sch map[string]any
	if err := json.Unmarshal(data, &sch); err != nil {
		return nil, err
	}
	embeddedResources(sch)
	doc, err := crdDocument(template, crdVersion{
		group: res.gvk.Group, version: res.gvk.Version, kind: res.gvk.Kind, listKind: res.gvk.Kind + "List",
		plural: res.gvr.Resource, namespaced: res.namespaced, status: res.status, scale: res.scale, schema: sch,
	})
	if err != nil {
		return nil, err
	}
	if data, err = json.Marshal(doc); err != nil {
		return nil, err
	}
	models, err := documentModels(data)
	if err != nil {
		return nil, err
	}
	ms, err := newModelSchema(models)
	if err != nil {
		return nil, err
	}
	tc, ok := ms.converter(res.gvk)
	if !ok {
		return nil, fmt.Errorf("fake: no model of %v", res.gvk)
	}
	return tc, nil
}

// embeddedResources gives every object of x-kubernetes-embedded-resource in
// the schema sch the apiVersion, kind and metadata properties of a
// resource, metadata referring to ObjectMeta's model.
func embeddedResources(sch map[string]any) {
	if sch == nil {
		return
	}
	props, _ := sch["properties"].(map[string]any)
	for _, p := range props {
		if ps, ok := p.(map[string]any); ok {
			embeddedResources(ps)
		}
	}
	if items, ok := sch["items"].(map[string]any); ok {
		embeddedResources(items)
	}
	if add, ok := sch["additionalProperties"].(map[string]any); ok {
		embeddedResources(add)
	}
	if embedded, _ := sch["x-kubernetes-embedded-resource"].(bool); !embedded {
		return
	}
	if props == nil {
		props = map[string]any{}
		sch["properties"] = props
	}
	props["apiVersion"] = map[string]any{"type": "string"}
	props["kind"] = map[string]any{"type": "string"}
	props["metadata"] = map[string]any{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
}
