package apply_test

import (
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/apply"
)

func liveDeployment(entries ...metav1.ManagedFieldsEntry) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: "web", Namespace: "ns", ResourceVersion: "7",
			Labels:        map[string]string{"a": "1", "b": "2"},
			ManagedFields: entries,
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(int32(0)),
			Paused:   false,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				Containers: []corev1.Container{
					{Name: "app", Image: "app:1", ImagePullPolicy: corev1.PullIfNotPresent, Ports: []corev1.ContainerPort{{ContainerPort: 80, Protocol: corev1.ProtocolTCP}}},
					{Name: "sidecar", Image: "sidecar:1"},
				},
				Tolerations: []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}},
			}},
		},
		Status: appsv1.DeploymentStatus{Replicas: 3, Conditions: []appsv1.DeploymentCondition{{Type: "Available", Status: "True"}}},
	}
}

func entry(manager, sub, fields string) metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationApply, Subresource: sub, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
}

func TestExtractReadsWhatAManagerOwns(t *testing.T) {
	ty := deploymentType(t)
	live := liveDeployment(
		entry("a", "", `{"f:metadata":{"f:labels":{"f:a":{}}},"f:spec":{"f:paused":{},"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}},"f:tolerations":{}}}}}`),
		entry("b", "", `{"f:metadata":{"f:labels":{"f:b":{}}},"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"sidecar\"}":{".":{},"f:name":{},"f:image":{}}}}}}}`),
		entry("s", "status", `{"f:status":{"f:replicas":{},"f:conditions":{"k:{\"type\":\"Available\"}":{".":{},"f:status":{},"f:type":{}}}}}`),
		metav1.ManagedFieldsEntry{Manager: "u", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{}}`)}},
	)
	tests := []struct {
		manager, sub, want string
	}{
		{"a", "", `{"metadata":{"labels":{"a":"1"},"name":"web","namespace":"ns"},"spec":{"paused":false,"replicas":0,"template":{"spec":{"containers":[{"image":"app:1","name":"app","ports":[{"containerPort":80,"protocol":"TCP"}]}],"tolerations":[{"key":"k","operator":"Exists"}]}}}}`},
		{"b", "", `{"metadata":{"labels":{"b":"2"},"name":"web","namespace":"ns"},"spec":{"template":{"spec":{"containers":[{"image":"sidecar:1","name":"sidecar"}]}}}}`},
		{"s", "status", `{"metadata":{"name":"web","namespace":"ns"},"status":{"conditions":[{"status":"True","type":"Available"}],"replicas":3}}`},
		{"s", "", `{"metadata":{"name":"web","namespace":"ns"}}`},
		{"u", "", `{"metadata":{"name":"web","namespace":"ns"}}`},
		{"nobody", "", `{"metadata":{"name":"web","namespace":"ns"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.manager+"/"+tt.sub, func(t *testing.T) {
			c, err := ty.ExtractSubresource(live, tt.manager, tt.sub)
			if err != nil {
				t.Fatal(err)
			}
			if got := configJSON(t, c); got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestExtractOfAppliedEqualsTheConfiguration(t *testing.T) {
	ty := deploymentType(t)
	want, err := ty.Configure(func(d *appsv1.Deployment) {
		d.Name = "web"
		d.Labels["a"] = "1"
		d.Spec.Replicas = ptr(int32(0))
		d.Spec.Paused = false
		d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "app", Image: "app:1", Ports: []corev1.ContainerPort{{ContainerPort: 80, Protocol: corev1.ProtocolTCP}}}}
		d.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}}
	})
	if err != nil {
		t.Fatal(err)
	}
	live := liveDeployment(entry("a", "", `{"f:metadata":{"f:labels":{"f:a":{}}},"f:spec":{"f:paused":{},"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}}}},"f:tolerations":{}}}}}`))
	got, err := ty.Extract(live, "a")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(want) {
		t.Fatalf("extracted %s\nwant      %s", configJSON(t, got), configJSON(t, want))
	}
	live.Spec.Template.Spec.Containers[0].Image = "app:2"
	if got, _ := ty.Extract(live, "a"); got.Equal(want) {
		t.Fatal("a changed image compares equal")
	}
}

func TestEqualIgnoresTheOrderOfListMapsAndSets(t *testing.T) {
	ty := deploymentType(t)
	mk := func(names ...string) *apply.Configuration[*appsv1.Deployment] {
		c, err := ty.Configure(func(d *appsv1.Deployment) {
			d.Name = "web"
			d.Finalizers = names
			for _, n := range names {
				d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: n, Image: "i"})
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if !mk("a", "b").Equal(mk("b", "a")) {
		t.Fatal("order of a list map and a set matters")
	}
	if mk("a", "b").Equal(mk("a", "c")) {
		t.Fatal("different elements compare equal")
	}
}

func TestExtractRefusesUnreadableFields(t *testing.T) {
	ty := deploymentType(t)
	for _, fields := range []string{`{`, `{"x:y":{}}`, `{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:[1]":{}}}}}}`, `{"f:spec":{"f:template":{"f:spec":{"f:containers":{"i:-1":{}}}}}}`} {
		_, err := ty.Extract(liveDeployment(entry("a", "", fields)), "a")
		var ee *apply.ExtractError
		if !errors.As(err, &ee) || !errors.Is(err, apply.ErrInvalid) {
			t.Errorf("%s: error %v, want an *ExtractError", fields, err)
		}
	}
	if _, err := ty.Extract(nil, "a"); !errors.Is(err, apply.ErrInvalid) {
		t.Errorf("nil object: %v", err)
	}
}

func FuzzExtract(f *testing.F) {
	f.Add([]byte(`{"f:metadata":{"f:labels":{"f:a":{}}},"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{}}}}}}}`))
	f.Add([]byte(`{"f:spec":{"f:template":{"f:spec":{"f:tolerations":{"v:1":{},"i:0":{"f:key":{}}}}}}}`))
	ty, err := apply.TypeOf[*appsv1.Deployment]()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, fields []byte) {
		c, err := ty.Extract(liveDeployment(entry("a", "", string(fields))), "a")
		if err != nil {
			if !errors.Is(err, apply.ErrInvalid) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if c.Name() != "web" {
			t.Fatalf("name %q", c.Name())
		}
	})
}
