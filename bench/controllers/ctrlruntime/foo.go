//go:build !labeler_only

package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The Foo custom resource (samplecontroller.k8s.io/v1alpha1), written by
// hand as a controller-runtime user without code generators would: the
// same fields as examples/samplecontroller's, with DeepCopy methods.

var fooGV = schema.GroupVersion{Group: "samplecontroller.k8s.io", Version: "v1alpha1"}

// Foo asks for a Deployment.
type Foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FooSpec   `json:"spec"`
	Status FooStatus `json:"status"`
}

// FooSpec is the Deployment a Foo asks for.
type FooSpec struct {
	DeploymentName string `json:"deploymentName"`
	Replicas       *int32 `json:"replicas,omitempty"`
}

// FooStatus is what the controller saw of the Deployment.
type FooStatus struct {
	AvailableReplicas int32 `json:"availableReplicas"`
}

// FooList is a list of Foos.
type FooList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Foo `json:"items"`
}

// DeepCopyInto copies f into out.
func (f *Foo) DeepCopyInto(out *Foo) {
	*out = *f
	out.TypeMeta = f.TypeMeta
	f.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if f.Spec.Replicas != nil {
		r := *f.Spec.Replicas
		out.Spec.Replicas = &r
	}
}

// DeepCopy returns a copy of f.
func (f *Foo) DeepCopy() *Foo {
	if f == nil {
		return nil
	}
	out := new(Foo)
	f.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (f *Foo) DeepCopyObject() runtime.Object { return f.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *FooList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(FooList)
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Foo, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

// addFoo registers Foo and FooList in s.
func addFoo(s *runtime.Scheme) error {
	s.AddKnownTypes(fooGV, &Foo{}, &FooList{})
	metav1.AddToGroupVersion(s, fooGV)
	return nil
}
