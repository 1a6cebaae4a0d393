package client

import (
	"context"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// form is how objects of a Go type travel.
type form int

const (
	// formScheme: the rest client knows the type's kind (its scheme
	// registers it, or it is a built-in kind: rest.Client.KindsOf) and
	// decodes it (protobuf for built-ins); lists are read into the list
	// kind's Go type when the scheme registers it, else item by item
	// (itemList), in protobuf when the items have protobuf methods.
	formScheme form = iota
	// formJSON: a Go type the scheme does not know (a CRD type); JSON only.
	formJSON
	// formUnstructured: *unstructured.Unstructured, JSON.
	formUnstructured
	// formMetadata: *metav1.PartialObjectMetadata, asked for with the
	// as=PartialObjectMetadata media type parameter, protobuf first.
	formMetadata
)

const (
	// AcceptMetadata asks the server for PartialObjectMetadata, in
	// protobuf when it can (every resource, custom ones included, since
	// the server converts), else JSON.
	AcceptMetadata = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1," +
		"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
	// AcceptMetadataList asks the server for a PartialObjectMetadataList,
	// protobuf first.
	AcceptMetadataList = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1," +
		"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
)

var (
	unstructuredType = reflect.TypeFor[*unstructured.Unstructured]()
	metadataType     = reflect.TypeFor[*metav1.PartialObjectMetadata]()
)

// typeInfo is what the client knows about one Go type. It is immutable.
type typeInfo struct {
	typ     reflect.Type // pointer type
	form    form
	mapping Mapping // valid when resolved
	// resolved is false when the mapping must come from the Mapper (gk
	// says which kind), or when the type is unknown (err).
	resolved bool
	builtin  bool // from the k8s.io/api table: strategic merge patch works
	gk       schema.GroupKind
	versions []string
	listGVK  schema.GroupVersionKind // formScheme only: the list kind of the type's kind
	// zero is formScheme only: a zero object of the type, made once and
	// never modified, that tells a request its answer's Go type without
	// allocating an object per request.
	zero runtime.Object
	err  error
}

func (c *Client) describe(t reflect.Type) *typeInfo {
	ti := &typeInfo{typ: t}
	switch t {
	case unstructuredType:
		ti.form = formUnstructured
		ti.err = &UnknownTypeError{Type: t}
		return ti
	case metadataType:
		ti.form = formMetadata
		ti.err = &UnknownTypeError{Type: t}
		return ti
	}
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		ti.err = &UnknownTypeError{Type: t}
		return ti
	}
	obj, _ := reflect.New(t.Elem()).Interface().(runtime.Object)
	var gvks []schema.GroupVersionKind
	if obj != nil {
		gvks = c.rest.KindsOf(obj)
	}
	ti.form = formJSON
	if len(gvks) > 0 {
		ti.form = formScheme
		ti.listGVK = listKind(gvks[0])
		ti.zero = obj
	}
	if m, ok := c.registry.lookup(t); ok {
		ti.mapping, ti.resolved = m, true
		if ti.form == formScheme {
			ti.listGVK = listKind(m.Kind)
		}
		return ti
	}
	for _, gvk := range gvks {
		if m, ok := Builtin(gvk); ok {
			ti.mapping, ti.resolved, ti.builtin = m, true, true
			ti.listGVK = listKind(gvk)
			return ti
		}
	}
	if len(gvks) > 0 && c.mapper != nil {
		ti.gk = gvks[0].GroupKind()
		for _, gvk := range gvks {
			ti.versions = append(ti.versions, gvk.Version)
		}
		return ti
	}
	ti.err = &UnknownTypeError{Type: t}
	return ti
}

// resolve returns the mapping of the type, asking the Mapper when needed.
func (c *Client) resolve(ctx context.Context, ti *typeInfo) (Mapping, error) {
	if ti.resolved {
		return ti.mapping, nil
	}
	if ti.err != nil {
		return Mapping{}, ti.err
	}
	m, err := c.mapper.RESTMapping(ctx, ti.gk, ti.versions...)
	if err != nil {
		return Mapping{}, &UnknownTypeError{Type: ti.typ, Cause: err}
	}
	return m, nil
}
