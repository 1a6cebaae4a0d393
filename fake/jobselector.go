package fake

import (
	"maps"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var jobsGVR = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}

// selectJob gives a new Job without manualSelector what kube-apiserver's
// Job registry gives it: its pod template is labelled with the Job's uid
// and name (under the batch.kubernetes.io keys and the legacy ones) and
// its selector matches the uid. A Job that came without labels
// (unlabelled) gets its template's, these included, as on kube-apiserver,
// where the defaulted Job shares its template's label map.
func selectJob(u map[string]any, unlabelled bool) (map[string]any, error) {
	var j batchv1.Job
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, &j); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if j.Spec.ManualSelector != nil && *j.Spec.ManualSelector {
		return u, nil
	}
	uid := string(j.UID)
	l := j.Spec.Template.Labels
	if l == nil {
		l = map[string]string{}
	}
	for _, k := range []string{batchv1.ControllerUidLabel, "controller-uid"} {
		if _, ok := l[k]; !ok {
			l[k] = uid
		}
	}
	if len(j.Name) <= 63 {
		for _, k := range []string{batchv1.JobNameLabel, "job-name"} {
			if _, ok := l[k]; !ok {
				l[k] = j.Name
			}
		}
	}
	j.Spec.Template.Labels = l
	if j.Spec.Selector == nil {
		j.Spec.Selector = &metav1.LabelSelector{}
	}
	if j.Spec.Selector.MatchLabels == nil {
		j.Spec.Selector.MatchLabels = map[string]string{}
	}
	if _, ok := j.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel]; !ok {
		j.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] = uid
	}
	if unlabelled {
		j.Labels = maps.Clone(l)
	}
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&j)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out["apiVersion"], out["kind"] = "batch/v1", "Job"
	return out, nil
}
