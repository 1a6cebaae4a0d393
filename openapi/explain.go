package openapi

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Field describes one field of a kind, as kubectl explain shows it.
type Field struct {
	// Name is the field's name; Path the dotted path from the kind's
	// root ("spec.template.spec.containers"), empty for the root.
	Name, Path string
	// Type is the field's type in kubectl explain's notation: "string",
	// "integer", "boolean", "number", "Object", "IntOrString", a kind or
	// type name ("PodSpec"), "[]T" for a list and "map[string]T" for a map.
	Type string
	// Description is the field's documentation.
	Description string
	// Required is true when the field's parent requires it.
	Required bool
	// Fields are the fields of an object's schema (of a list's items), by
	// name, each without Fields of its own.
	Fields []Field
}

// Explain returns the field at path of kind gvk ("" for the kind itself,
// "spec.template.spec.containers" for a field deep inside): its type,
// description and, for an object or a list of objects, its fields. Lists
// are walked through to their items, as kubectl explain does. A path that
// leads nowhere is an error wrapping ErrNoSchema that names the first
// missing field.
func (c *Client) Explain(ctx context.Context, gvk schema.GroupVersionKind, path string) (*Field, error) {
	root, doc, err := c.Schema(ctx, gvk)
	if err != nil {
		return nil, err
	}
	w := walker{doc: doc}
	f := &Field{Name: gvk.Kind, Type: gvk.Kind, Description: root.Description}
	s := root
	var walked []string
	if path != "" {
		for _, seg := range strings.Split(path, ".") {
			parent := w.items(w.resolve(s))
			prop, ok := parent.Properties[seg]
			if !ok {
				return nil, fmt.Errorf("%w: %s has no field %q at %q", ErrNoSchema, gvk.Kind, seg, strings.Join(walked, "."))
			}
			walked = append(walked, seg)
			s = &prop
			f = &Field{Name: seg, Path: strings.Join(walked, "."), Type: w.typeOf(s), Description: w.resolve(s).Description, Required: slices.Contains(parent.Required, seg)}
			if d := s.Description; d != "" {
				f.Description = d
			}
		}
	}
	obj := w.items(w.resolve(s))
	for _, name := range sortedKeys(obj.Properties) {
		p := obj.Properties[name]
		desc := p.Description
		if desc == "" {
			desc = w.resolve(&p).Description
		}
		f.Fields = append(f.Fields, Field{
			Name: name, Path: strings.TrimPrefix(f.Path+"."+name, "."), Type: w.typeOf(&p),
			Description: desc, Required: slices.Contains(obj.Required, name),
		})
	}
	return f, nil
}

// walker resolves the references of one document.
type walker struct{ doc *spec3.OpenAPI }

const componentPrefix = "#/components/schemas/"

// resolve follows s's $ref, and a lone allOf (kube-apiserver's way of
// giving a referenced schema a description or default), to the schema
// that describes the value. It stops at ten steps.
func (w walker) resolve(s *spec.Schema) *spec.Schema {
	for range 10 {
		switch {
		case s.Ref.String() != "":
			if w.doc.Components == nil {
				return s
			}
			next, ok := w.doc.Components.Schemas[strings.TrimPrefix(s.Ref.String(), componentPrefix)]
			if !ok {
				return s
			}
			s = next
		case len(s.AllOf) == 1 && len(s.Properties) == 0 && len(s.Type) == 0:
			s = &s.AllOf[0]
		default:
			return s
		}
	}
	return s
}

// items returns the schema of a list's items, or s itself.
func (w walker) items(s *spec.Schema) *spec.Schema {
	for s.Items != nil && s.Items.Schema != nil {
		s = w.resolve(s.Items.Schema)
	}
	return s
}

// typeOf names s's type as kubectl explain does.
func (w walker) typeOf(s *spec.Schema) string {
	if name := w.refName(s); name != "" {
		r := w.resolve(s)
		if r.Type.Contains("string") || r.Type.Contains("integer") || r.Type.Contains("boolean") || r.Type.Contains("number") {
			return r.Type[0]
		}
		return name
	}
	if v, ok := s.Extensions["x-kubernetes-int-or-string"]; ok && v == true {
		return "IntOrString"
	}
	switch {
	case s.Type.Contains("array") && s.Items != nil && s.Items.Schema != nil:
		return "[]" + w.typeOf(s.Items.Schema)
	case s.Type.Contains("object") && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		return "map[string]" + w.typeOf(s.AdditionalProperties.Schema)
	case s.Type.Contains("object") || len(s.Properties) > 0:
		return "Object"
	case len(s.Type) > 0:
		return s.Type[0]
	}
	return "Object"
}

// refName is the last dotted part of the component s refers to ("PodSpec"
// for io.k8s.api.core.v1.PodSpec), through a lone allOf; "" when s refers
// to none.
func (w walker) refName(s *spec.Schema) string {
	for range 10 {
		switch {
		case s.Ref.String() != "":
			name := strings.TrimPrefix(s.Ref.String(), componentPrefix)
			return name[strings.LastIndex(name, ".")+1:]
		case len(s.AllOf) == 1 && len(s.Properties) == 0 && len(s.Type) == 0:
			s = &s.AllOf[0]
		default:
			return ""
		}
	}
	return ""
}
