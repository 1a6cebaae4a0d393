// Package apischematest holds Sample, a custom resource type that uses
// every Go kind and every declaration apischema supports, for the tests of
// packages that build, serve and validate schemas (apischema, crd, fake).
package apischematest

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubego/kubego/apischema"
)

// GroupVersion is Sample's group and version.
var GroupVersion = schema.GroupVersion{Group: "samples.kubego.io", Version: "v1"}

// Sample is a namespaced custom resource of plural "samples".
type Sample struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   SampleSpec    `json:"spec"`
	Status *SampleStatus `json:"status,omitempty"`
}

// SampleSpec holds a field of every Go kind and every declaration.
type SampleSpec struct {
	// Go kinds.
	Bool      bool                        `json:"bool"`
	Int       int                         `json:"int,omitempty"`
	Int8      int8                        `json:"int8,omitempty"`
	Int16     int16                       `json:"int16,omitempty"`
	Int32     int32                       `json:"int32,omitempty"`
	Int64     int64                       `json:"int64,omitempty"`
	Uint8     uint8                       `json:"uint8,omitempty"`
	Uint16    uint16                      `json:"uint16,omitempty"`
	Uint32    uint32                      `json:"uint32,omitempty"`
	Float32   float32                     `json:"float32,omitempty"`
	Float64   float64                     `json:"float64,omitempty"`
	String    string                      `json:"string"`
	Bytes     []byte                      `json:"bytes,omitempty"`
	Pointer   *string                     `json:"pointer,omitempty"`
	Strings   []string                    `json:"strings,omitempty"`
	Array     [2]int32                    `json:"array"`
	Map       map[string]string           `json:"map,omitempty"`
	MapOfList map[string][]int64          `json:"mapOfList,omitempty"`
	Nested    Nested                      `json:"nested"`
	NestedPtr *Nested                     `json:"nestedPtr,omitempty"`
	Items     []Item                      `json:"items,omitempty" kube:"listType=map;listMapKeys=name"`
	Time      metav1.Time                 `json:"time,omitzero"`
	MicroTime *metav1.MicroTime           `json:"microTime,omitempty"`
	Duration  *metav1.Duration            `json:"duration,omitempty"`
	Quantity  *resource.Quantity          `json:"quantity,omitempty"`
	IntOrStr  *intstr.IntOrString         `json:"intOrString,omitempty"`
	Raw       *runtime.RawExtension       `json:"raw,omitempty"`
	Free      json.RawMessage             `json:"free,omitempty"`
	Resources corev1.ResourceRequirements `json:"resources,omitzero"`
	Selector  *metav1.LabelSelector       `json:"selector,omitempty"`
	Inline    `json:",inline"`
	Skipped   string `json:"-"`

	// Declarations.
	Color    Color             `json:"color,omitempty"`
	Replicas *int32            `json:"replicas,omitempty" kube:"minimum=0;maximum=10"`
	Ratio    float64           `json:"ratio,omitempty" kube:"minimum=0;maximum=1;exclusiveMaximum"`
	Step     int32             `json:"step,omitempty" kube:"multipleOf=5"`
	Name     string            `json:"name,omitempty" kube:"minLength=1;maxLength=20;pattern=^[a-z]+$"`
	Email    string            `json:"email,omitempty" kube:"format=email"`
	Mode     string            `json:"mode,omitempty" kube:"default=fast;enum=fast|slow"`
	Tags     []string          `json:"tags,omitempty" kube:"listType=set;maxItems=5;items.pattern=^[a-z]+$"`
	Labels   map[string]string `json:"labels,omitempty" kube:"maxProperties=3;mapType=atomic"`
	Note     *string           `json:"note" kube:"nullable;optional"`
	Extra    *Extra            `json:"extra,omitempty" kube:"preserveUnknownFields"`
	Embedded *corev1.ConfigMap `json:"embedded,omitempty" kube:"embeddedResource"`
	Window   *Window           `json:"window,omitempty"`
	MustHave *string           `json:"mustHave,omitempty" kube:"required"`
}

// KubeSchema declares a CEL rule on a field.
func (SampleSpec) KubeSchema() apischema.Declaration {
	return apischema.Declaration{
		Description: "SampleSpec holds a field of every kind and declaration.",
		Fields: map[string]apischema.Field{
			"Name": {Description: "name of the sample", Validations: []apischema.Validation{{Rule: "self != 'admin'", Message: "admin is reserved"}}},
		},
	}
}

// Nested is a struct field.
type Nested struct {
	A string `json:"a"`
	B int32  `json:"b,omitempty"`
}

// Item is an item of a map list keyed by name.
type Item struct {
	Name  string `json:"name"`
	Value int64  `json:"value,omitempty"`
}

// Inline is flattened into SampleSpec.
type Inline struct {
	Flat string `json:"flat,omitempty"`
}

// Extra keeps unknown fields.
type Extra struct {
	Known string `json:"known,omitempty"`
}

// Color is a string of three values.
type Color string

// KubeSchema declares Color's values.
func (Color) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Description: "a primary color", Tag: "enum=red|green|blue"}
}

// Window is a pair of bounds with a CEL rule on the pair.
type Window struct {
	Start int32 `json:"start"`
	End   int32 `json:"end"`
}

// KubeSchema declares that the window is not reversed.
func (Window) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Validations: []apischema.Validation{{Rule: "self.start <= self.end", Message: "start must not be after end"}}}
}

// SampleStatus is Sample's status.
type SampleStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty" kube:"listType=map;listMapKeys=type"`
}
