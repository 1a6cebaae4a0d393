// Package webhooks holds the admission webhooks of the CronJob example,
// those of the kubebuilder book: a defaulting webhook that fills in the
// concurrency policy, suspend and the history limits, and a validating
// webhook that refuses a schedule package cron cannot parse and a name
// too long for the names of the CronJob's Jobs. Both are typed handlers
// of webhook/admission: Default and Validate work on a *v1.CronJob and
// never see an AdmissionReview.
//
//	srv, err := webhook.New(webhook.Options{CertFile: crt, KeyFile: key})
//	...
//	webhooks.Register(srv)
//	mgr.Add(srv)
package webhooks

import (
	"context"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/examples/cronjob/cron"
	"github.com/kubego/kubego/webhook/admission"
	"github.com/kubego/kubego/webhookconfig"
)

// The paths the webhooks are served at (the kubebuilder project's).
const (
	DefaultPath  = "/mutate-batch-tutorial-kubebuilder-io-v1-cronjob"
	ValidatePath = "/validate-batch-tutorial-kubebuilder-io-v1-cronjob"
)

// Defaults Default sets.
const (
	DefaultSuccessfulJobsHistoryLimit int32 = 3
	DefaultFailedJobsHistoryLimit     int32 = 1
)

// MaxNameLength is the longest CronJob name accepted: a Job's name is the
// CronJob's, a dash and a ten-digit Unix time, within the 63 characters
// of a DNS label.
const MaxNameLength = validation.DNS1035LabelMaxLength - 11

// Kind is the group and kind both webhooks serve.
var Kind = schema.GroupKind{Group: v1.GroupVersion.Group, Kind: "CronJob"}

// Default fills in the fields a CronJob left unset: concurrencyPolicy
// Allow, suspend false, and the history limits (3 successful Jobs, 1
// failed).
func Default(_ context.Context, cj *v1.CronJob) error {
	if cj.Spec.ConcurrencyPolicy == "" {
		cj.Spec.ConcurrencyPolicy = v1.AllowConcurrent
	}
	if cj.Spec.Suspend == nil {
		cj.Spec.Suspend = new(bool)
	}
	if cj.Spec.SuccessfulJobsHistoryLimit == nil {
		n := DefaultSuccessfulJobsHistoryLimit
		cj.Spec.SuccessfulJobsHistoryLimit = &n
	}
	if cj.Spec.FailedJobsHistoryLimit == nil {
		n := DefaultFailedJobsHistoryLimit
		cj.Spec.FailedJobsHistoryLimit = &n
	}
	return nil
}

// Validate returns nil for a CronJob whose schedule parses and whose name
// is at most MaxNameLength long, and otherwise an Invalid *StatusError
// (422) listing each field at fault, as kube-apiserver's own validation
// words it.
func Validate(cj *v1.CronJob) error {
	var errs field.ErrorList
	if len(cj.Name) > MaxNameLength {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), cj.Name, fmt.Sprintf("must be no more than %d characters", MaxNameLength)))
	}
	if _, err := cron.Parse(cj.Spec.Schedule); err != nil {
		errs = append(errs, field.Invalid(field.NewPath("spec", "schedule"), cj.Spec.Schedule, err.Error()))
	}
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(Kind, cj.Name, errs)
}

// validator checks creates and updates; deletes are always allowed.
var validator = admission.ValidatorFuncs[*v1.CronJob]{
	Create: func(_ context.Context, cj *v1.CronJob) (admission.Warnings, error) { return nil, Validate(cj) },
	Update: func(_ context.Context, _, cj *v1.CronJob) (admission.Warnings, error) { return nil, Validate(cj) },
}

// Defaulting is the handler of the defaulting webhook.
func Defaulting() admission.Handler {
	return admission.Defaulting[v1.CronJob](admission.DefaulterFunc[*v1.CronJob](Default), admission.TypedOptions{Kind: Kind})
}

// Validating is the handler of the validating webhook.
func Validating() admission.Handler {
	return admission.Validating[v1.CronJob](validator, admission.TypedOptions{Kind: Kind})
}

// Mux is where Register mounts the webhooks: a *webhook.Server, or an
// *http.ServeMux.
type Mux interface {
	Handle(pattern string, h http.Handler)
}

// Add registers the defaulting webhook at DefaultPath and the validating
// one at ValidatePath in set, which mounts them on its server and makes
// their configurations (creates and updates of CronJobs, failure policy
// Fail).
func Add(set *webhookconfig.Set) {
	webhookconfig.Default[v1.CronJob](set, DefaultPath, admission.DefaulterFunc[*v1.CronJob](Default), webhookconfig.Admission{})
	webhookconfig.Validate[v1.CronJob](set, ValidatePath, validator, webhookconfig.Admission{})
}

// Register serves the defaulting webhook at DefaultPath and the validating
// one at ValidatePath on mux.
func Register(mux Mux, opts admission.Options) {
	mux.Handle(DefaultPath, admission.New(Defaulting(), opts))
	mux.Handle(ValidatePath, admission.New(Validating(), opts))
}
