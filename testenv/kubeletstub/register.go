package kubeletstub

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/rest"
)

// websocketFeature is the node feature that makes kube-apiserver hand
// WebSocket exec, attach and port-forward streams to the kubelet as they
// are, instead of translating them to SPDY.
const websocketFeature = "ExtendWebSocketsToKubelet"

// RegisterNode creates the stand-in's Node: Ready, its InternalIP
// 127.0.0.1, its kubelet endpoint the stand-in's port, declaring the
// ExtendWebSocketsToKubelet feature unless Options.Translated.
func (k *Kubelet) RegisterNode(ctx context.Context, c *rest.Client) (*corev1.Node, error) {
	node := &corev1.Node{
		TypeMeta:   metav1.TypeMeta{Kind: "Node", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: k.opts.NodeName, Labels: map[string]string{"kubernetes.io/hostname": k.opts.NodeName}},
		Status: corev1.NodeStatus{
			Addresses:        []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}},
			DaemonEndpoints:  corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(k.Port())}},
			DeclaredFeatures: []string{websocketFeature},
			Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				Message: "kubeletstub is serving", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(),
			}},
		},
	}
	if k.opts.Translated {
		node.Status.DeclaredFeatures = nil
	}
	out := &corev1.Node{}
	if err := c.Post().Resource("nodes").Body(node).Do(ctx).Into(out); err != nil {
		return nil, fmt.Errorf("kubeletstub: creating Node %s: %w", k.opts.NodeName, err)
	}
	return out, nil
}

// CreatePod creates a Pod bound to the stand-in's Node with one container
// per name in containers ("main" when none is given), and marks it Running
// with podIP as its IP (empty: none).
func (k *Kubelet) CreatePod(ctx context.Context, c *rest.Client, namespace, name, podIP string, containers ...string) (*corev1.Pod, error) {
	if len(containers) == 0 {
		containers = []string{"main"}
	}
	pod := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       corev1.PodSpec{NodeName: k.opts.NodeName},
	}
	for _, cn := range containers {
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: cn, Image: "kubeletstub/builtins"})
	}
	out := &corev1.Pod{}
	if err := c.Post().Namespace(namespace).Resource("pods").Body(pod).Do(ctx).Into(out); err != nil {
		return nil, fmt.Errorf("kubeletstub: creating Pod %s/%s: %w", namespace, name, err)
	}
	out.Status.Phase = corev1.PodRunning
	out.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	if podIP != "" {
		out.Status.PodIP = podIP
		out.Status.PodIPs = []corev1.PodIP{{IP: podIP}}
	}
	for _, cn := range containers {
		out.Status.ContainerStatuses = append(out.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: cn, Image: "kubeletstub/builtins", Ready: true,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}},
		})
	}
	updated := &corev1.Pod{}
	if err := c.Put().Namespace(namespace).Resource("pods").Name(name).SubResource("status").Body(out).Do(ctx).Into(updated); err != nil {
		return nil, fmt.Errorf("kubeletstub: marking Pod %s/%s running: %w", namespace, name, err)
	}
	return updated, nil
}
