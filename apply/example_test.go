package apply_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubego/kubego/apply"
)

func ExampleType_Configure() {
	ty, err := apply.TypeOf[*appsv1.Deployment]()
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := ty.Configure(func(d *appsv1.Deployment) {
		d.Name = "web"
		zero := int32(0)
		d.Spec.Replicas = &zero // owned, though zero
		d.Spec.Paused = false   // owned, though zero
		d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "app", Image: "registry.example/app:1"}}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	data, _ := cfg.MarshalJSON()
	fmt.Println(string(data))
	// Output:
	// {"metadata":{"name":"web"},"spec":{"paused":false,"replicas":0,"template":{"spec":{"containers":[{"image":"registry.example/app:1","name":"app"}]}}}}
}
