package client_test

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
)

// Widget is a CRD Go type as a user writes it: no generated code.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Size     int               `json:"size,omitempty"`
	Tags     []string          `json:"tags,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	Memory   resource.Quantity `json:"memory,omitempty"`
	Parent   *WidgetSpec       `json:"parent,omitempty"`
	Replicas *int32            `json:"replicas,omitempty"`
}

type WidgetStatus struct {
	Ready bool `json:"ready,omitempty"`
}

func (w *Widget) DeepCopyObject() runtime.Object { return client.DeepCopy(w) }

var widgetGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

func widgetRegistry() *client.Registry {
	reg := client.NewRegistry()
	client.Register[*Widget](reg, widgetGVR, true)
	return reg
}
