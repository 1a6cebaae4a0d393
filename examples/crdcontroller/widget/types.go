// Package widget is a custom resource defined in Go, with no generated
// code, and the controller that reconciles it: widgets.example.kubego.dev,
// kind Widget. The controller reports in status that it has seen each
// generation of the spec, the smallest honest job of a CRD controller.
package widget

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
)

// Resource is the group/version/resource of Widgets.
var Resource = schema.GroupVersionResource{Group: "example.kubego.dev", Version: "v1", Resource: "widgets"}

// Widget is the Go type of the custom resource: TypeMeta and ObjectMeta
// embedded, spec and status as plain structs.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   Spec   `json:"spec,omitempty"`
	Status Status `json:"status,omitempty"`
}

// Spec is the desired state of a Widget.
type Spec struct {
	Color string `json:"color,omitempty"`
	Size  int32  `json:"size,omitempty"`
}

// Status is what the controller observed.
type Status struct {
	// ObservedGeneration is the metadata.generation the controller last
	// reconciled.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Summary describes the spec that generation asked for.
	Summary string `json:"summary,omitempty"`
}

// DeepCopyObject implements runtime.Object: the one line a CRD Go type
// needs, since client.DeepCopy copies any such type by reflection.
func (w *Widget) DeepCopyObject() runtime.Object { return client.DeepCopy(w) }

// Register maps *Widget to its resource in reg, for client.Options.Registry.
func Register(reg *client.Registry) {
	client.Register[*Widget](reg, Resource, true)
}
