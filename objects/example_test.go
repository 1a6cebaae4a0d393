package objects_test

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/crd"
	"github.com/kubego/kubego/dynamic"
	"github.com/kubego/kubego/fake"
	"github.com/kubego/kubego/objects"
)

// Foo is a custom resource Go type, written by hand.
type Foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              FooSpec   `json:"spec,omitempty"`
	Status            FooStatus `json:"status,omitempty"`
}

type FooSpec struct {
	DeploymentName string `json:"deploymentName,omitempty"`
	Replicas       *int32 `json:"replicas,omitempty"`
}

type FooStatus struct {
	AvailableReplicas int32              `json:"availableReplicas,omitempty"`
	Conditions        []metav1.Condition `json:"conditions,omitempty"`
}

func (f *Foo) DeepCopyObject() runtime.Object { return client.DeepCopy(f) }

// fooCRD is Foo's definition, built from its Go type.
func fooCRD() (*unstructured.Unstructured, error) {
	return crd.Build(crd.Definition{
		Group: "samplecontroller.example.com", Kind: "Foo",
		Versions: []crd.Version{{Name: "v1alpha1", Type: crd.TypeOf[Foo](), Status: true}},
	})
}

// A reconcile of a Foo owning a Deployment: the Deployment is created or
// brought in line with CreateOrUpdate (the Foo as its controller), and the
// Foo's status, with a condition set by apimachinery's
// meta.SetStatusCondition, is written with a merge patch from the cached
// copy, so that a cache lagging behind the server causes no conflict.
func Example() {
	srv := fake.NewServer(fake.Options{}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo"}})
	defer srv.Close()
	ctx := context.Background()

	reg := client.NewRegistry()
	client.Register[*Foo](reg, schema.GroupVersionResource{Group: "samplecontroller.example.com", Version: "v1alpha1", Resource: "foos"}, true)
	c, err := client.NewForConfig(srv.Config(), client.Options{Registry: reg, FieldManager: "foo-controller"})
	if err != nil {
		fmt.Println(err)
		return
	}
	def, err := fooCRD()
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := crd.Install(ctx, dynamic.New(c.REST(), dynamic.Options{}), []*unstructured.Unstructured{def}, crd.InstallOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	foos := client.Typed[*Foo](c).Namespace("demo")
	two := int32(2)
	cached, err := foos.Create(ctx, &Foo{ObjectMeta: metav1.ObjectMeta{Name: "example"}, Spec: FooSpec{DeploymentName: "web", Replicas: &two}}, metav1.CreateOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}

	// The reconcile, given the cached Foo.
	deployments := client.Typed[*appsv1.Deployment](c).Namespace("demo")
	dep, res, err := objects.CreateOrUpdate(ctx, deployments, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: cached.Spec.DeploymentName}},
		func(d *appsv1.Deployment) error {
			labels := map[string]string{"app": "web", "controller": cached.Name}
			d.Spec.Replicas = cached.Spec.Replicas
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels}
			d.Spec.Template.Labels = labels
			d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web", Image: "nginx"}}
			return objects.SetControllerReference(cached, d, c)
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("deployment", dep.Name, res, "controlled by", metav1.GetControllerOf(dep).Kind)

	foo := cached.DeepCopyObject().(*Foo)
	foo.Status.AvailableReplicas = dep.Status.AvailableReplicas
	meta.SetStatusCondition(&foo.Status.Conditions, metav1.Condition{
		Type: "Synced", Status: metav1.ConditionTrue, Reason: "DeploymentCreated", Message: "deployment web created",
	})
	patched, err := objects.PatchStatus(ctx, foos, cached, foo, objects.PatchOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("synced:", meta.IsStatusConditionTrue(patched.Status.Conditions, "Synced"))
	// Output:
	// deployment web created controlled by Foo
	// synced: true
}

// Finalizer helpers report whether they changed the object, so a
// reconciler writes only when needed.
func ExampleAddFinalizer() {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}}
	fmt.Println(objects.AddFinalizer(cm, "example.com/cleanup"))
	fmt.Println(objects.AddFinalizer(cm, "example.com/cleanup"))
	fmt.Println(objects.HasFinalizer(cm, "example.com/cleanup"), cm.Finalizers)
	fmt.Println(objects.RemoveFinalizer(cm, "example.com/cleanup"), cm.Finalizers)
	// Output:
	// true
	// false
	// true [example.com/cleanup]
	// true []
}
