package controller

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/kubego/kubego/examples/cronjob/api/v1"
)

// The condition types of a CronJob's status.
const (
	// ConditionAvailable is true while the CronJob runs its schedule
	// without failed Jobs: False when suspended or a failed Job is kept.
	ConditionAvailable = "Available"
	// ConditionProgressing is true while a Job of the CronJob is active.
	ConditionProgressing = "Progressing"
	// ConditionDegraded is true when the schedule does not parse or a
	// failed Job is kept.
	ConditionDegraded = "Degraded"
)

// setConditions sets the three conditions from what the reconcile saw; a
// condition whose status does not change keeps its transition time.
func setConditions(status *v1.CronJobStatus, now time.Time, suspended bool, schedErr error, active, failed int) {
	set := func(typ string, ok bool, reason, msg string, args ...any) {
		st := metav1.ConditionFalse
		if ok {
			st = metav1.ConditionTrue
		}
		meta.SetStatusCondition(&status.Conditions, metav1.Condition{
			Type: typ, Status: st, Reason: reason, Message: fmt.Sprintf(msg, args...),
			LastTransitionTime: metav1.NewTime(now),
		})
	}
	switch {
	case suspended:
		set(ConditionAvailable, false, "Suspended", "the CronJob is suspended")
	case failed > 0:
		set(ConditionAvailable, false, "JobsFailed", "%d kept Job(s) failed", failed)
	case active > 0:
		set(ConditionAvailable, true, "JobsActive", "%d Job(s) active", active)
	default:
		set(ConditionAvailable, true, "AllJobsCompleted", "no Job active or failed")
	}
	if active > 0 {
		set(ConditionProgressing, true, "JobsActive", "%d Job(s) active", active)
	} else {
		set(ConditionProgressing, false, "NoJobsActive", "no Job active")
	}
	switch {
	case schedErr != nil && !suspended:
		set(ConditionDegraded, true, "InvalidSchedule", "%v", schedErr)
	case failed > 0:
		set(ConditionDegraded, true, "JobsFailed", "%d kept Job(s) failed", failed)
	default:
		set(ConditionDegraded, false, "Healthy", "no failed Job kept and the schedule parses")
	}
}
