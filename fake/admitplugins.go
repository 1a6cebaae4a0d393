package fake

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// What kube-apiserver's default admission plugins and registries add to a
// new object beyond its defaults: a Pod's priority (Priority) and
// tolerations of unready and unreachable nodes (DefaultTolerationSeconds),
// a Node's not-ready taint (TaintNodesByCondition), the protection
// finalizers of claims and volumes (StorageObjectInUseProtection), a
// volume's phase transition time, a DaemonSet's template generation, a
// Job's selector (jobselector.go) and a Service's addresses and ports
// (serviceips.go).

var (
	priorityClassesGVR = schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses"}
	pvcsGVR            = schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}
	pvsGVR             = schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"}
	podsGVR            = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	daemonSetsGVR      = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}
	nodesGVR           = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
)

const (
	pvcProtection = "kubernetes.io/pvc-protection"
	pvProtection  = "kubernetes.io/pv-protection"
)

// systemPriorities are the priority classes kube-apiserver creates.
var systemPriorities = map[string]int64{
	"system-node-critical":    2000001000,
	"system-cluster-critical": 2000000000,
}

func addFinalizer(u map[string]any, f string) {
	uu := unstructured.Unstructured{Object: u}
	if fs := uu.GetFinalizers(); !slices.Contains(fs, f) {
		uu.SetFinalizers(append(fs, f))
	}
}

// admitPod sets a new Pod's priority from its priority class (or the
// global default class, else 0) and adds the tolerations of not-ready and
// unreachable nodes for 300 seconds unless it tolerates them already.
func (s *Server) admitPod(u map[string]any) error {
	spec, _ := u["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		u["spec"] = spec
	}
	className, _ := spec["priorityClassName"].(string)
	var value int64
	policy := string(corev1.PreemptLowerPriority)
	found := false
	if v, ok := systemPriorities[className]; ok {
		value, found = v, true
	}
	for _, o := range s.st.data[priorityClassesGVR] {
		if found {
			break
		}
		def, _ := o.u["globalDefault"].(bool)
		if (className == "" && def) || (className != "" && o.key.name == className) {
			value, _ = o.u["value"].(int64)
			if p, ok := o.u["preemptionPolicy"].(string); ok {
				policy = p
			}
			if className == "" {
				spec["priorityClassName"] = o.key.name
			}
			found = true
		}
	}
	if !found && className != "" {
		return apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", fmt.Errorf("no PriorityClass with name %s was found", className))
	}
	spec["priority"] = value
	if _, ok := spec["preemptionPolicy"]; !ok {
		spec["preemptionPolicy"] = policy
	}
	tols, _ := spec["tolerations"].([]any)
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		tolerated := false
		for _, t := range tols {
			tm, _ := t.(map[string]any)
			k, _ := tm["key"].(string)
			eff, _ := tm["effect"].(string)
			if (k == key || k == "") && (eff == string(corev1.TaintEffectNoExecute) || eff == "") {
				tolerated = true
			}
		}
		if !tolerated {
			tols = append(tols, map[string]any{"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": int64(300)})
		}
	}
	spec["tolerations"] = tols
	return nil
}

// templateGenerationKey is the annotation through which apps/v1 shows a
// DaemonSet's template generation.
const templateGenerationKey = "deprecated.daemonset.template.generation"

func setTemplateGeneration(u *unstructured.Unstructured, gen int64) {
	a := u.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[templateGenerationKey] = strconv.FormatInt(gen, 10)
	u.SetAnnotations(a)
}

// keepTemplateGeneration gives an updated DaemonSet the template
// generation of old, one more if the pod template changed, as
// kube-apiserver's registry does.
func keepTemplateGeneration(u *unstructured.Unstructured, old map[string]any) {
	ou := unstructured.Unstructured{Object: old}
	gen, err := strconv.ParseInt(ou.GetAnnotations()[templateGenerationKey], 10, 64)
	if err != nil {
		return
	}
	nt, _, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "template")
	ot, _, _ := unstructured.NestedFieldNoCopy(old, "spec", "template")
	if !reflect.DeepEqual(nt, ot) {
		gen++
	}
	setTemplateGeneration(u, gen)
}

// taintNotReady gives a new Node the taint node.kubernetes.io/not-ready
// (NoSchedule) unless it has it.
func taintNotReady(u map[string]any) {
	spec, _ := u["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		u["spec"] = spec
	}
	taints, _ := spec["taints"].([]any)
	for _, t := range taints {
		if tm, _ := t.(map[string]any); tm["key"] == corev1.TaintNodeNotReady && tm["effect"] == string(corev1.TaintEffectNoSchedule) {
			return
		}
	}
	spec["taints"] = append(taints, map[string]any{"key": corev1.TaintNodeNotReady, "effect": string(corev1.TaintEffectNoSchedule)})
}
