package kubegotest

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
)

// The stand-ins below write the status kube-controller-manager would
// write, in a shape kube-apiserver accepts, for tests that run without it
// (testenv and fake run no controllers). Each reads the object again,
// sets its status from its spec and writes it through the status
// subresource; the time written is time.Now() (fake time in a synctest
// bubble), to the second as the API keeps it.

// CompleteJob marks job as succeeded, as the Job controller does when
// every completion succeeded: startTime (if unset), completionTime,
// succeeded = completions (1 when unset), no active Pods, and the
// SuccessCriteriaMet and Complete conditions.
func CompleteJob(ctx context.Context, c *client.Client, job *batchv1.Job) (*batchv1.Job, error) {
	return finishJob(ctx, c, job, func(j *batchv1.Job, now metav1.Time) {
		n := int32(1)
		if j.Spec.Completions != nil {
			n = *j.Spec.Completions
		}
		j.Status.Succeeded = n
		j.Status.CompletionTime = &now
		j.Status.Conditions = append(j.Status.Conditions,
			batchv1.JobCondition{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonCompletionsReached, Message: "Reached expected number of succeeded pods", LastProbeTime: now, LastTransitionTime: now},
			batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonCompletionsReached, Message: "Reached expected number of succeeded pods", LastProbeTime: now, LastTransitionTime: now},
		)
	})
}

// FailJob marks job as failed with reason (batchv1.JobReasonBackoffLimitExceeded
// when empty), as the Job controller does: startTime (if unset), one
// failed Pod more, no active Pods, and the FailureTarget and Failed
// conditions.
func FailJob(ctx context.Context, c *client.Client, job *batchv1.Job, reason string) (*batchv1.Job, error) {
	if reason == "" {
		reason = batchv1.JobReasonBackoffLimitExceeded
	}
	return finishJob(ctx, c, job, func(j *batchv1.Job, now metav1.Time) {
		j.Status.Failed++
		j.Status.Conditions = append(j.Status.Conditions,
			batchv1.JobCondition{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: reason, Message: "Job has failed", LastProbeTime: now, LastTransitionTime: now},
			batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: reason, Message: "Job has failed", LastProbeTime: now, LastTransitionTime: now},
		)
	})
}

func finishJob(ctx context.Context, c *client.Client, job *batchv1.Job, set func(*batchv1.Job, metav1.Time)) (*batchv1.Job, error) {
	jobs := client.Typed[*batchv1.Job](c).Namespace(job.Namespace)
	cur, err := jobs.Get(ctx, job.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	for _, cond := range cur.Status.Conditions {
		if (cond.Type == batchv1.JobComplete || cond.Type == batchv1.JobFailed) && cond.Status == corev1.ConditionTrue {
			return nil, fmt.Errorf("kubegotest: job %s/%s already finished (%s)", job.Namespace, job.Name, cond.Type)
		}
	}
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	if cur.Status.StartTime == nil {
		cur.Status.StartTime = &now
	}
	cur.Status.Active = 0
	zero := int32(0)
	cur.Status.Ready = &zero
	cur.Status.Terminating = &zero
	cur.Status.UncountedTerminatedPods = nil
	set(cur, now)
	return jobs.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
}

// RollOutDeployment marks d as fully rolled out, as the Deployment
// controller does once every replica of its current template is
// available: observedGeneration, replicas = updated = ready = available =
// spec.replicas (1 when unset), and the Available and Progressing
// conditions.
func RollOutDeployment(ctx context.Context, c *client.Client, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	deps := client.Typed[*appsv1.Deployment](c).Namespace(d.Namespace)
	cur, err := deps.Get(ctx, d.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	n := int32(1)
	if cur.Spec.Replicas != nil {
		n = *cur.Spec.Replicas
	}
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	cur.Status = appsv1.DeploymentStatus{
		ObservedGeneration: cur.Generation,
		Replicas:           n, UpdatedReplicas: n, ReadyReplicas: n, AvailableReplicas: n,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability.", LastUpdateTime: now, LastTransitionTime: now},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable", Message: fmt.Sprintf("ReplicaSet %q has successfully progressed.", cur.Name), LastUpdateTime: now, LastTransitionTime: now},
		},
	}
	return deps.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
}
