package protodec

import (
	"reflect"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func unsafeStringData(s string) *byte { return unsafe.StringData(s) }

// quantityStringCached reports whether q's canonical string is filled in.
func quantityStringCached(q *resource.Quantity) bool {
	return reflect.ValueOf(q).Elem().FieldByName("s").Len() > 0
}

// testPod is a realistic Pod: what a Deployment's ReplicaSet creates, then
// scheduled and running.
func testPod(name string) *corev1.Pod {
	labels := map[string]string{"app": "web", "pod-template-hash": "5d4f8b7c9d", "tier": "frontend"}
	res := corev1.ResourceRequirements{
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
	}
	ts := metav1.Unix(1700000000, 0)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default", UID: types.UID("0d7f3c1e-5b7a-4c1f-9a38-" + name),
			ResourceVersion: "12345", GenerateName: "web-5d4f8b7c9d-", CreationTimestamp: ts,
			Labels:          labels,
			Annotations:     map[string]string{"kubernetes.io/psp": "restricted"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d4f8b7c9d", UID: "a-b-c"}},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "web", Image: "registry.example.com/web:1.2.3",
				Ports:     []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				Env:       []corev1.EnvVar{{Name: "MODE", Value: "production"}, {Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}}},
				Resources: res,
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}},
					PeriodSeconds: 10},
				VolumeMounts:             []corev1.VolumeMount{{Name: "token", MountPath: "/var/run/secrets", ReadOnly: true}},
				TerminationMessagePath:   "/dev/termination-log",
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				ImagePullPolicy:          corev1.PullIfNotPresent,
			}},
			Volumes:                       []corev1.Volume{{Name: "token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{}}}},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: new(int64(30)),
			DNSPolicy:                     corev1.DNSClusterFirst,
			NodeName:                      "node-7",
			Tolerations:                   []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: new(int64(300))}},
		},
		Status: corev1.PodStatus{
			Phase:      corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: ts}},
			HostIP:     "10.0.0.7", PodIP: "10.244.1.9", StartTime: &ts,
			ContainerStatuses: []corev1.ContainerStatus{{Name: "web", Ready: true, Image: "registry.example.com/web:1.2.3", ImageID: "sha256:abc", ContainerID: "containerd://" + name}},
		},
	}
}
