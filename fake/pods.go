package fake

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// What the Pod registry does beyond the generic rules: a new Pod's status
// and QoS class, and graceful deletion of a Pod bound to a node.

// gracefulPod reports whether o, a pod, is bound to a node that a kubelet
// would still have to stop: kube-apiserver keeps it until then.
func gracefulPod(o *object) bool {
	g := o.meta().GetDeletionGracePeriodSeconds()
	return g != nil && *g > 0
}

// podGrace is the grace period of a pod deletion: zero for a pod no kubelet
// runs (unscheduled or finished), else the request's or the pod's.
func podGrace(o *object, req *int64) int64 {
	node, _, _ := unstructured.NestedString(o.u, "spec", "nodeName")
	phase, _, _ := unstructured.NestedString(o.u, "status", "phase")
	if node == "" || phase == "Succeeded" || phase == "Failed" {
		return 0
	}
	if req != nil {
		return max(*req, 0)
	}
	if g, ok, _ := unstructured.NestedInt64(o.u, "spec", "terminationGracePeriodSeconds"); ok {
		return max(g, 0)
	}
	return 30
}

// initPodStatus gives a new pod the status kube-apiserver gives it: phase
// Pending and its QoS class.
func initPodStatus(u map[string]any) {
	_ = unstructured.SetNestedField(u, "Pending", "status", "phase")
	_ = unstructured.SetNestedField(u, qosClass(u), "status", "qosClass")
}

// qosClass computes a pod's QoS class from its containers' requests and
// limits: BestEffort with none, Guaranteed when every container limits cpu
// and memory and requests (if given) equal the limits, else Burstable.
func qosClass(u map[string]any) string {
	containers, _, _ := unstructured.NestedSlice(u, "spec", "containers")
	inits, _, _ := unstructured.NestedSlice(u, "spec", "initContainers")
	some, guaranteed := false, len(containers) > 0
	for _, c := range append(containers, inits...) {
		cm, ok := c.(map[string]any)
		if !ok {
			continue
		}
		req, _, _ := unstructured.NestedStringMap(cm, "resources", "requests")
		lim, _, _ := unstructured.NestedStringMap(cm, "resources", "limits")
		if len(req) > 0 || len(lim) > 0 {
			some = true
		}
		for _, r := range []string{"cpu", "memory"} {
			l, ok := lim[r]
			if !ok {
				guaranteed = false
				continue
			}
			if q, ok := req[r]; ok && q != l {
				guaranteed = false
			}
		}
	}
	switch {
	case !some:
		return "BestEffort"
	case guaranteed:
		return "Guaranteed"
	}
	return "Burstable"
}
