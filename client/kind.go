package client

import (
	"context"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// KindResolver finds the kind of an object's Go type without asking the
// server: what owner references, Events and the kinds of a controller's
// sources need. A *Client is one (KindOf); so is anything with that
// method, such as a scheme adapter in tests. KindOf returns an error when
// the type cannot be mapped to a kind at all; it must be safe for
// concurrent use.
type KindResolver interface {
	KindOf(obj runtime.Object) (schema.GroupVersionKind, error)
}

// ResourceKindResolver is a KindResolver that also maps a resource to its
// kind without the server (KindForResource). A *Client is one; a
// controller whose For source is metadata-only finds its Owns sources'
// owner kind through it.
type ResourceKindResolver interface {
	KindResolver
	KindForResource(gvr schema.GroupVersionResource) (schema.GroupVersionKind, error)
}

// KindOf returns the group, version and kind of obj as far as the client
// knows them without asking the server: obj's own apiVersion and kind when
// both are set (as on an *unstructured.Unstructured), else those of its Go
// type from, in order, the Registry, the table of built-in kinds and the
// rest client's scheme. It returns *UnknownTypeError when none knows the
// type: every request for it would fail the same way. A type known only
// to the scheme is given its kind even though its resource is still to be
// found through the Mapper. A *metav1.PartialObjectMetadata names the
// kind of the object it describes only when its TypeMeta does; one
// labelled as PartialObjectMetadata is of unknown kind.
func (c *Client) KindOf(obj runtime.Object) (schema.GroupVersionKind, error) {
	if obj == nil {
		return schema.GroupVersionKind{}, &UnknownTypeError{}
	}
	if gvk := obj.GetObjectKind().GroupVersionKind(); gvk.Kind != "" && gvk.Version != "" && gvk.GroupKind() != metadataKind {
		return gvk, nil
	}
	ti := c.typeOf(reflect.TypeOf(obj))
	switch {
	case ti.resolved:
		return ti.mapping.Kind, nil
	case ti.err != nil:
		return schema.GroupVersionKind{}, ti.err
	}
	return ti.gk.WithVersion(ti.versions[0]), nil
}

// metadataKind is the kind a PartialObjectMetadata carries when the server
// did not say which object it describes.
var metadataKind = schema.GroupKind{Group: "meta.k8s.io", Kind: "PartialObjectMetadata"}

// KindForResource returns the group, version and kind served as resource
// gvr, as far as the client knows without asking the server: from the
// Registry, else the table of built-in kinds. It returns an
// *UnknownResourceError when neither knows gvr.
func (c *Client) KindForResource(gvr schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	if m, ok := c.registry.kindFor(gvr); ok {
		return m.Kind, nil
	}
	if m, ok := builtinByResource(gvr); ok {
		return m.Kind, nil
	}
	return schema.GroupVersionKind{}, &UnknownResourceError{Resource: gvr}
}

// MappingOf returns the resource, kind and scope of Go type t (a pointer
// to a struct, as in Typed) as the client's requests for it use them: from
// the Registry, the table of built-in kinds, or the Mapper (which may ask
// the server's discovery, hence ctx). It returns *UnknownTypeError when
// none knows t, *unstructured.Unstructured and *metav1.PartialObjectMetadata
// included (their resource is given with each use, not by the type).
func (c *Client) MappingOf(ctx context.Context, t reflect.Type) (Mapping, error) {
	if t == nil {
		return Mapping{}, &UnknownTypeError{}
	}
	return c.resolve(ctx, c.typeOf(t))
}
