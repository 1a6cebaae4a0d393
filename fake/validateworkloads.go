package fake

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The part of kube-apiserver's validation of workloads (Deployment,
// ReplicaSet, StatefulSet, DaemonSet, Job, CronJob) that tests trip over:
// the selector and the template's labels, the template's restartPolicy,
// counts that cannot be negative, and the relations between the counts
// of a status. Errors come in kube-apiserver's order, so that the
// message of an object that breaks several of these rules is its message.
// The pod template itself is not validated (see docs/fake-fidelity.md).

var (
	deploymentsGVR  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	replicaSetsGVR  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	statefulSetsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
	cronJobsGVR     = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "cronjobs"}
)

// invalid is the 422 of a kind's validation, or nil without errors.
func invalid(gvk schema.GroupVersionKind, u map[string]any, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(gvk.GroupKind(), (&unstructured.Unstructured{Object: u}).GetName(), errs)
}

// num reads an integer field; ok is false when it is absent.
func num(u map[string]any, path ...string) (int64, bool) {
	v, ok, _ := unstructured.NestedFieldNoCopy(u, path...)
	if !ok || v == nil {
		return 0, false
	}
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		return int64(n), true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	}
	return 0, false
}

// nonNegative adds kube-apiserver's error for a negative count.
func nonNegative(errs field.ErrorList, u map[string]any, p *field.Path, path ...string) field.ErrorList {
	if n, ok := num(u, path...); ok && n < 0 {
		errs = append(errs, field.Invalid(p, n, "must be greater than or equal to 0"))
	}
	return errs
}

// selectorOf reads the label selector at path: nil when absent, and
// whether it could be read.
func selectorOf(u map[string]any, path ...string) (*metav1.LabelSelector, bool) {
	v, ok, _ := unstructured.NestedMap(u, path...)
	if !ok {
		return nil, true
	}
	var sel metav1.LabelSelector
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(v, &sel); err != nil {
		return nil, false
	}
	return &sel, true
}

// templateLabels reads the labels of the pod template at path.
func templateLabels(u map[string]any, path ...string) map[string]string {
	l, _, _ := unstructured.NestedStringMap(u, append(path, "metadata", "labels")...)
	return l
}

// workloadSpec describes where one kind keeps its pod template and how
// its validation words its rules.
type workloadSpec struct {
	// kind is the word of "empty selector is invalid for <kind>";
	// "" when the kind does not refuse an empty selector in that words.
	emptySelectorWord string
	// selectorRequired refuses an absent selector (Required).
	selectorRequired bool
	// replicas checks spec.replicas and spec.minReadySeconds.
	replicas bool
	// activeDeadlineKind names the kind in its refusal of
	// activeDeadlineSeconds in the template.
	activeDeadlineKind string
}

var (
	deploymentRules  = workloadSpec{emptySelectorWord: "deployment", selectorRequired: true, replicas: true, activeDeadlineKind: "ReplicaSet"}
	replicaSetRules  = workloadSpec{emptySelectorWord: "deployment", selectorRequired: true, replicas: true, activeDeadlineKind: "ReplicaSet"}
	statefulSetRules = workloadSpec{emptySelectorWord: "statefulset", selectorRequired: true, replicas: true, activeDeadlineKind: "StatefulSet"}
)

// validateReplicated is the validation of a Deployment, ReplicaSet or
// StatefulSet spec (old is nil on create).
func validateReplicated(gvk schema.GroupVersionKind, rules workloadSpec, extra func(u map[string]any) field.ErrorList) func(u, old map[string]any) error {
	return func(u, old map[string]any) error {
		spec := field.NewPath("spec")
		var errs field.ErrorList
		errs = nonNegative(errs, u, spec.Child("replicas"), "spec", "replicas")
		if gvk.Kind != "Deployment" {
			errs = nonNegative(errs, u, spec.Child("minReadySeconds"), "spec", "minReadySeconds")
		}
		sel, ok := selectorOf(u, "spec", "selector")
		switch {
		case !ok:
			errs = append(errs, field.Invalid(spec.Child("selector"), "", "invalid label selector"))
		case sel == nil:
			errs = append(errs, field.Required(spec.Child("selector"), ""))
		case len(sel.MatchLabels)+len(sel.MatchExpressions) == 0:
			errs = append(errs, field.Invalid(spec.Child("selector"), sel, "empty selector is invalid for "+rules.emptySelectorWord))
		}
		if ok {
			errs = append(errs, templateRules(u, sel, spec.Child("template"), rules.activeDeadlineKind)...)
		}
		if extra != nil {
			errs = append(errs, extra(u)...)
		}
		if old != nil {
			errs = append(errs, immutableSelector(u, old)...)
		}
		return invalid(gvk, u, errs)
	}
}

// templateRules checks the pod template at p (spec.template) against
// the selector sel, and its restartPolicy and activeDeadlineSeconds.
func templateRules(u map[string]any, sel *metav1.LabelSelector, p *field.Path, kind string) field.ErrorList {
	var errs field.ErrorList
	path := []string{"spec", "template"}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err == nil && !s.Empty() && !s.Matches(labels.Set(templateLabels(u, path...))) {
		errs = append(errs, field.Invalid(p.Child("metadata", "labels"), templateLabels(u, path...), "`selector` does not match template `labels`"))
	}
	errs = append(errs, restartAlways(u, p, path...)...)
	if _, ok := num(u, append(path, "spec", "activeDeadlineSeconds")...); ok {
		errs = append(errs, field.Forbidden(p.Child("spec", "activeDeadlineSeconds"), fmt.Sprintf("activeDeadlineSeconds in %s is not Supported", kind)))
	}
	return errs
}

// restartAlways refuses a template whose restartPolicy is not Always
// (the kinds that keep their pods running).
func restartAlways(u map[string]any, p *field.Path, path ...string) field.ErrorList {
	rp, _, _ := unstructured.NestedString(u, append(path, "spec", "restartPolicy")...)
	if rp == "" || rp == "Always" {
		return nil
	}
	return field.ErrorList{field.NotSupported(p.Child("spec", "restartPolicy"), rp, []string{"Always"})}
}

// immutableSelector refuses a change of spec.selector.
func immutableSelector(u, old map[string]any) field.ErrorList {
	sel, _ := selectorOf(u, "spec", "selector")
	was, _ := selectorOf(old, "spec", "selector")
	if equalSelectors(sel, was) {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("spec", "selector"), sel, "field is immutable")}
}

func equalSelectors(a, b *metav1.LabelSelector) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(a)
	y, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(b)
	return fmt.Sprint(x) == fmt.Sprint(y)
}

// deploymentSpecExtra are the rules of a Deployment's own fields.
func deploymentSpecExtra(u map[string]any) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	errs = nonNegative(errs, u, spec.Child("minReadySeconds"), "spec", "minReadySeconds")
	errs = nonNegative(errs, u, spec.Child("revisionHistoryLimit"), "spec", "revisionHistoryLimit")
	if pd, ok := num(u, "spec", "progressDeadlineSeconds"); ok {
		errs = nonNegative(errs, u, spec.Child("progressDeadlineSeconds"), "spec", "progressDeadlineSeconds")
		minReady, _ := num(u, "spec", "minReadySeconds")
		if pd <= minReady {
			errs = append(errs, field.Invalid(spec.Child("progressDeadlineSeconds"), pd, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

// validateDaemonSet is the validation of a DaemonSet spec.
func validateDaemonSet(u, old map[string]any) error {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if old != nil {
		errs = append(errs, immutableSelector(u, old)...)
	}
	sel, ok := selectorOf(u, "spec", "selector")
	if ok {
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err == nil && !s.Matches(labels.Set(templateLabels(u, "spec", "template"))) {
			errs = append(errs, field.Invalid(spec.Child("template", "metadata", "labels"), templateLabels(u, "spec", "template"), "`selector` does not match template `labels`"))
		}
		if sel != nil && len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(spec.Child("selector"), sel, "empty selector is invalid for daemonset"))
		}
	}
	errs = append(errs, restartAlways(u, spec.Child("template"), "spec", "template")...)
	if _, ok := num(u, "spec", "template", "spec", "activeDeadlineSeconds"); ok {
		errs = append(errs, field.Forbidden(spec.Child("template", "spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in DaemonSet is not Supported"))
	}
	errs = nonNegative(errs, u, spec.Child("minReadySeconds"), "spec", "minReadySeconds")
	errs = nonNegative(errs, u, spec.Child("revisionHistoryLimit"), "spec", "revisionHistoryLimit")
	return invalid(daemonSetsGVR.GroupVersion().WithKind("DaemonSet"), u, errs)
}

// jobRestart refuses the restartPolicy of a Job's pod template at path,
// which must be OnFailure or Never.
func jobRestart(u map[string]any, p *field.Path, path ...string) field.ErrorList {
	rp, _, _ := unstructured.NestedString(u, append(path, "spec", "restartPolicy")...)
	switch rp {
	case "OnFailure", "Never":
		return nil
	case "", "Always":
		return field.ErrorList{field.Required(p.Child("spec", "restartPolicy"), `valid values: "OnFailure", "Never"`)}
	}
	return field.ErrorList{field.NotSupported(p.Child("spec", "restartPolicy"), rp, []string{"OnFailure", "Never"})}
}

// validateJob is the validation of a Job spec: its template's
// restartPolicy, and a selector given by hand (manualSelector) against
// the template's labels.
func validateJob(u, old map[string]any) error {
	spec := field.NewPath("spec")
	errs := jobRestart(u, spec.Child("template"), "spec", "template")
	manual, _, _ := unstructured.NestedBool(u, "spec", "manualSelector")
	if sel, ok := selectorOf(u, "spec", "selector"); ok && sel != nil && (manual || old != nil) {
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err == nil && !s.Matches(labels.Set(templateLabels(u, "spec", "template"))) {
			errs = append(errs, field.Invalid(spec.Child("template", "metadata", "labels"), templateLabels(u, "spec", "template"), "`selector` does not match template `labels`"))
		}
	}
	if old != nil {
		errs = append(errs, immutableSelector(u, old)...)
	}
	return invalid(jobsGVR.GroupVersion().WithKind("Job"), u, errs)
}

// validateCronJob is the validation of the restartPolicy of a CronJob's
// job template.
func validateCronJob(u, _ map[string]any) error {
	p := field.NewPath("spec", "jobTemplate", "spec", "template")
	return invalid(cronJobsGVR.GroupVersion().WithKind("CronJob"), u, jobRestart(u, p, "spec", "jobTemplate", "spec", "template"))
}

// replicaCounts are the status counts a Deployment, ReplicaSet or
// StatefulSet status relates to status.replicas, in kube-apiserver's
// order of checks.
type replicaCounts struct {
	nonNegative []string // fields checked for a negative value, in order
	notAbove    []string // fields that cannot exceed status.replicas, in order
	// availableWord is how the refusal of availableReplicas above
	// readyReplicas names the latter.
	availableWord string
}

var (
	deploymentCounts = replicaCounts{
		nonNegative:   []string{"observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas", "terminatingReplicas", "collisionCount"},
		notAbove:      []string{"updatedReplicas", "readyReplicas", "availableReplicas"},
		availableWord: "readyReplicas",
	}
	replicaSetCounts = replicaCounts{
		nonNegative:   []string{"replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration", "terminatingReplicas"},
		notAbove:      []string{"fullyLabeledReplicas", "readyReplicas", "availableReplicas"},
		availableWord: "readyReplicas",
	}
	statefulSetCounts = replicaCounts{
		nonNegative:   []string{"replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas", "observedGeneration", "collisionCount"},
		notAbove:      []string{"readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"},
		availableWord: "status.readyReplicas",
	}
	daemonSetCounts = replicaCounts{
		nonNegative: []string{"currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady", "observedGeneration", "updatedNumberScheduled", "numberAvailable", "numberUnavailable", "collisionCount"},
	}
)

// validateStatus is the validation of a write of the status
// subresource of a kind with the counts c.
func validateStatus(gvk schema.GroupVersionKind, c replicaCounts) func(u, old map[string]any) error {
	return func(u, old map[string]any) error {
		st := field.NewPath("status")
		var errs field.ErrorList
		for _, f := range c.nonNegative {
			errs = nonNegative(errs, u, st.Child(f), "status", f)
		}
		replicas, _ := num(u, "status", "replicas")
		for _, f := range c.notAbove {
			if n, _ := num(u, "status", f); n > replicas {
				errs = append(errs, field.Invalid(st.Child(f), n, "cannot be greater than status.replicas"))
			}
		}
		if c.availableWord != "" {
			avail, _ := num(u, "status", "availableReplicas")
			ready, _ := num(u, "status", "readyReplicas")
			if avail > ready {
				errs = append(errs, field.Invalid(st.Child("availableReplicas"), avail, "cannot be greater than "+c.availableWord))
			}
		}
		was, wasSet := num(old, "status", "collisionCount")
		now, _ := num(u, "status", "collisionCount")
		if wasSet && now < was {
			errs = append(errs, field.Invalid(st.Child("collisionCount"), now, "cannot be decremented"))
		}
		return invalid(gvk, u, errs)
	}
}
