// Package gizmo is a custom resource with two versions and the webhooks an
// operator ships for it: gizmos.example.kubego.dev, kind Gizmo. v1 gives a
// gizmo's size as a number of centimetres; v2, the storage version, as a
// length with its unit. A defaulting webhook sets the color, a validating
// one bounds the length and keeps the color of a gizmo once set, and a
// conversion webhook turns v1 into v2 and back. The admission webhooks are
// written for v2 only: kube-apiserver converts v1 requests before calling
// them.
package gizmo

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
)

// Group is the API group of Gizmos.
const Group = "example.kubego.dev"

// The resources of each version.
var (
	V1 = schema.GroupVersionResource{Group: Group, Version: "v1", Resource: "gizmos"}
	V2 = schema.GroupVersionResource{Group: Group, Version: "v2", Resource: "gizmos"}
)

// GizmoV1 is a Gizmo as v1 serves it.
type GizmoV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              SpecV1 `json:"spec,omitempty"`
}

// SpecV1 is the v1 spec: the size in centimetres.
type SpecV1 struct {
	Size  int    `json:"size,omitempty"`
	Color string `json:"color,omitempty"`
}

// Gizmo is a Gizmo as v2 (the storage version) serves it.
type Gizmo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec,omitempty"`
}

// Spec is the v2 spec: the length with its unit, "30cm" or "2m".
type Spec struct {
	Length string `json:"length,omitempty"`
	Color  string `json:"color,omitempty"`
}

// DeepCopyObject makes GizmoV1 a runtime.Object for the typed client.
func (g *GizmoV1) DeepCopyObject() runtime.Object { return client.DeepCopy(g) }

// DeepCopyObject makes Gizmo a runtime.Object for the typed client.
func (g *Gizmo) DeepCopyObject() runtime.Object { return client.DeepCopy(g) }

// Register adds both versions to a client registry.
func Register(reg *client.Registry) {
	client.Register[*GizmoV1](reg, V1, true)
	client.Register[*Gizmo](reg, V2, true)
}
