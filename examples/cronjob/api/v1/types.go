// Package v1 holds the API types of the CronJob example, the CronJob of
// the kubebuilder book declared for kubego: the Go types are the whole
// source of the CustomResourceDefinition (CRD builds it, no generated
// file and no comment markers). The schema's descriptions are the doc
// comments of this file, which the package embeds (Docs).
package v1

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/apischema"
	"github.com/kubego/kubego/client"
)

// GroupVersion is the group and version of these types.
var GroupVersion = schema.GroupVersion{Group: "batch.tutorial.kubebuilder.io", Version: "v1"}

// CronJob is the Schema for the cronjobs API
type CronJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitzero"`

	// spec defines the desired state of CronJob
	Spec CronJobSpec `json:"spec"`
	// status defines the observed state of CronJob
	Status CronJobStatus `json:"status,omitzero"`
}

// CronJobSpec defines the desired state of CronJob
type CronJobSpec struct {
	// schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.
	Schedule string `json:"schedule" kube:"minLength=0"`
	// startingDeadlineSeconds defines in seconds for starting the job if it
	// misses scheduled time for any reason.  Missed jobs executions will be
	// counted as failed ones.
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty" kube:"minimum=0"`
	// concurrencyPolicy specifies how to treat concurrent executions of a Job.
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty" kube:"default=Allow"`
	// suspend tells the controller to suspend subsequent executions, it does
	// not apply to already started executions.  Defaults to false.
	Suspend *bool `json:"suspend,omitempty"`
	// jobTemplate defines the job that will be created when executing a
	// CronJob.
	JobTemplate batchv1.JobTemplateSpec `json:"jobTemplate"`
	// successfulJobsHistoryLimit defines the number of successful finished
	// jobs to retain.
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty" kube:"minimum=0"`
	// failedJobsHistoryLimit defines the number of failed finished jobs to
	// retain.
	FailedJobsHistoryLimit *int32 `json:"failedJobsHistoryLimit,omitempty" kube:"minimum=0"`
}

// ConcurrencyPolicy describes how the job will be handled.
type ConcurrencyPolicy string

const (
	// AllowConcurrent allows CronJobs to run concurrently.
	AllowConcurrent ConcurrencyPolicy = "Allow"
	// ForbidConcurrent forbids concurrent runs, skipping the next run if the
	// previous one has not finished yet.
	ForbidConcurrent ConcurrencyPolicy = "Forbid"
	// ReplaceConcurrent cancels the running job and replaces it with a new
	// one.
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
)

// KubeSchema declares the values a ConcurrencyPolicy may take.
func (ConcurrencyPolicy) KubeSchema() apischema.Declaration {
	return apischema.Declaration{Tag: "enum=Allow|Forbid|Replace"}
}

// CronJobStatus defines the observed state of CronJob.
type CronJobStatus struct {
	// active defines a list of pointers to currently running jobs.
	Active []corev1.ObjectReference `json:"active,omitempty" kube:"listType=atomic;minItems=1;maxItems=10"`
	// lastScheduleTime defines when was the last time the job was
	// successfully scheduled.
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`
	// conditions represent the current state of the CronJob resource.
	Conditions []metav1.Condition `json:"conditions,omitempty" kube:"listType=map;listMapKeys=type"`
}

// CronJobList is a list of CronJobs.
type CronJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitzero"`
	Items           []CronJob `json:"items"`
}

// DeepCopyObject implements runtime.Object (client.DeepCopy copies any
// such type by reflection).
func (c *CronJob) DeepCopyObject() runtime.Object { return client.DeepCopy(c) }

// DeepCopyObject implements runtime.Object.
func (l *CronJobList) DeepCopyObject() runtime.Object { return client.DeepCopy(l) }

// Register maps *CronJob to its resource in reg, for client.Options.Registry.
func Register(reg *client.Registry) {
	client.Register[*CronJob](reg, GroupVersion.WithResource("cronjobs"), true)
}
