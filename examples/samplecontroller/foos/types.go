// Package foos is the Foo custom resource and its controller, the behaviour
// of Kubernetes' sample-controller written with kubego: each Foo
// (samplecontroller.k8s.io/v1alpha1) owns a Deployment named by
// spec.deploymentName with spec.replicas replicas, and reports the
// Deployment's available replicas in its status.
//
// The controller creates the Deployment when it is missing (also after
// someone deletes it), keeps its replicas in step with the Foo, and never
// takes over a Deployment of that name it does not control: it records a
// Warning Event ErrResourceExists on the Foo and retries with backoff. A
// Foo without a deployment name gets a Warning Event InvalidSpec; every
// successful sync a Normal Event Synced. The status is written through the
// status subresource as a merge patch, so it never conflicts with the
// cache being a step behind.
package foos

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
)

// Resource is the group/version/resource of Foos.
var Resource = schema.GroupVersionResource{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Resource: "foos"}

// Foo asks for a Deployment.
type Foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   Spec   `json:"spec"`
	Status Status `json:"status"`
}

// Spec is the Deployment a Foo asks for.
type Spec struct {
	// DeploymentName names the Deployment, in the Foo's namespace.
	DeploymentName string `json:"deploymentName"`
	// Replicas is the Deployment's replica count; nil leaves the
	// Deployment's default (1).
	Replicas *int32 `json:"replicas,omitempty" kube:"minimum=1;maximum=10"`
}

// Status is what the controller saw of the Deployment.
type Status struct {
	AvailableReplicas int32 `json:"availableReplicas"`
}

// DeepCopyObject implements runtime.Object (client.DeepCopy copies any
// such type by reflection).
func (f *Foo) DeepCopyObject() runtime.Object { return client.DeepCopy(f) }

// Register maps *Foo to its resource in reg, for client.Options.Registry.
func Register(reg *client.Registry) { client.Register[*Foo](reg, Resource, true) }
