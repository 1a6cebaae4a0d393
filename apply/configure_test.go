package apply_test

import (
	"encoding/json"
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubego/kubego/apischema/apischematest"
	"github.com/kubego/kubego/apply"
	cronv1 "github.com/kubego/kubego/examples/cronjob/api/v1"
)

func ptr[V any](v V) *V { return &v }

func deploymentType(t testing.TB) *apply.Type[*appsv1.Deployment] {
	t.Helper()
	ty, err := apply.TypeOf[*appsv1.Deployment]()
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

func configJSON(t *testing.T, c interface{ Object() map[string]any }) string {
	t.Helper()
	data, err := json.Marshal(c.Object())
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestConfigureOwnsExactlyTheFieldsSet(t *testing.T) {
	ty := deploymentType(t)
	tests := []struct {
		name string
		set  func(d *appsv1.Deployment)
		want string
	}{
		{"zero values set on purpose are owned", func(d *appsv1.Deployment) {
			d.Name = "web"
			d.Spec.Replicas = ptr(int32(0))
			d.Spec.Paused = false
			d.Spec.Template.Spec.ServiceAccountName = ""
		}, `{"metadata":{"name":"web"},"spec":{"paused":false,"replicas":0,"template":{"spec":{"serviceAccountName":""}}}}`},
		{"fields not set are not owned", func(d *appsv1.Deployment) {
			d.Name = "web"
		}, `{"metadata":{"name":"web"}}`},
		{"a list assigned whole keeps its non-zero fields and its keys", func(d *appsv1.Deployment) {
			d.Name = "web"
			d.Spec.Template.Spec.Containers = []corev1.Container{{
				Name: "app", Image: "img",
				Ports:     []corev1.ContainerPort{{ContainerPort: 80}},
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}},
			}}
		}, `{"metadata":{"name":"web"},"spec":{"template":{"spec":{"containers":[{"image":"img","name":"app","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"500m"}}}]}}}}`},
		{"a pointer literal is owned with its non-zero fields, a pointer to zero is owned", func(d *appsv1.Deployment) {
			d.Name = "web"
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
			d.Spec.Template.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: ptr(false)}
			d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		}, `{"metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"spec":{"securityContext":{"runAsNonRoot":false},"volumes":[{"emptyDir":{},"name":"v"}]}}}}`},
		{"map entries added one by one are owned one by one", func(d *appsv1.Deployment) {
			d.Name = "web"
			d.Labels["team"] = "a"
			d.Annotations["note"] = ""
		}, `{"metadata":{"annotations":{"note":""},"labels":{"team":"a"},"name":"web"}}`},
		{"fields of an allocated pointer are owned one by one", func(d *appsv1.Deployment) {
			d.Name = "web"
			d.Spec.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
			d.Spec.Strategy.RollingUpdate.MaxSurge = ptr(intstr.FromInt32(0))
		}, `{"metadata":{"name":"web"},"spec":{"strategy":{"rollingUpdate":{"maxSurge":0},"type":"RollingUpdate"}}}`},
		{"an empty list assigned is owned empty, a nil one is not owned", func(d *appsv1.Deployment) {
			d.Name = "web"
			d.Spec.Template.Spec.Tolerations = []corev1.Toleration{}
			d.Spec.Template.Spec.Volumes = nil
		}, `{"metadata":{"name":"web"},"spec":{"template":{"spec":{"tolerations":[]}}}}`},
		{"metadata lists and owner references", func(d *appsv1.Deployment) {
			d.Name, d.Namespace = "web", "ns"
			d.Finalizers = []string{"example.com/f"}
			d.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "o", UID: "u1", Controller: ptr(true)}}
		}, `{"metadata":{"finalizers":["example.com/f"],"name":"web","namespace":"ns","ownerReferences":[{"apiVersion":"v1","controller":true,"kind":"ConfigMap","name":"o","uid":"u1"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ty.Configure(tt.set)
			if err != nil {
				t.Fatal(err)
			}
			if got := configJSON(t, c); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestConfigureRefusesFunctionsThatRead(t *testing.T) {
	ty := deploymentType(t)
	tests := []struct {
		name string
		set  func(d *appsv1.Deployment)
		path string
	}{
		{"a value computed from the one given", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr(*d.Spec.Replicas + 1) }, "spec.replicas"},
		{"indexing a list that starts nil", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "x" }, ""},
		{"adding to an atomic map", func(d *appsv1.Deployment) { d.Spec.Template.Spec.NodeSelector["disk"] = "ssd" }, "spec.template.spec.nodeSelector"},
		{"a string built from the one given", func(d *appsv1.Deployment) { d.Name += "-x" }, "metadata.name"},
		{"no function", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ty.Configure(tt.set)
			var se *apply.SetError
			if !errors.As(err, &se) || !errors.Is(err, apply.ErrInvalid) {
				t.Fatalf("error %v, want a *SetError", err)
			}
			if se.Path != tt.path {
				t.Fatalf("path %q, want %q (%v)", se.Path, tt.path, err)
			}
		})
	}
}

func TestTypeOfRefusesTypesWithoutMetadata(t *testing.T) {
	if _, err := apply.TypeOf[appsv1.Deployment](); !errors.Is(err, apply.ErrUnsupported) {
		t.Fatalf("non-pointer: %v", err)
	}
	if _, err := apply.TypeOf[*appsv1.DeploymentSpec](); !errors.Is(err, apply.ErrUnsupported) {
		t.Fatalf("no metadata: %v", err)
	}
}

func TestConfigureCustomResources(t *testing.T) {
	cj, err := apply.TypeOf[*cronv1.CronJob]()
	if err != nil {
		t.Fatal(err)
	}
	c, err := cj.Configure(func(c *cronv1.CronJob) {
		c.Name = "cj"
		c.Spec.Schedule = "*/1 * * * *"
		c.Spec.Suspend = ptr(false)
		c.Spec.JobTemplate.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "busybox"}}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"name":"cj"},"spec":{"jobTemplate":{"spec":{"template":{"spec":{"containers":[{"image":"busybox","name":"c"}]}}}},"schedule":"*/1 * * * *","suspend":false}}`
	if got := configJSON(t, c); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// A condition is put in place whole: its zero message is still sent,
	// since the schema requires it; its zero observedGeneration is not.
	c, err = cj.Configure(func(c *cronv1.CronJob) {
		c.Name = "cj"
		c.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Done", LastTransitionTime: metav1.Unix(1, 0)}}
	})
	if err != nil {
		t.Fatal(err)
	}
	want = `{"metadata":{"name":"cj"},"status":{"conditions":[{"lastTransitionTime":"1970-01-01T00:00:01Z","message":"","reason":"Done","status":"True","type":"Ready"}]}}`
	if got := configJSON(t, c); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if _, err := apply.TypeOf[*apischematest.Sample](); err != nil {
		t.Fatal(err)
	}
}

func TestATypeIsSharedByConcurrentCalls(t *testing.T) {
	ty := deploymentType(t)
	want, err := ty.Configure(func(d *appsv1.Deployment) { d.Name = "web"; d.Spec.Paused = false })
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 8)
	for range 8 {
		go func() {
			c, err := ty.Configure(func(d *appsv1.Deployment) { d.Name = "web"; d.Spec.Paused = false })
			if err == nil && !c.Equal(want) {
				err = errors.New("configurations differ")
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
