package controller_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	v1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/examples/cronjob/controller"
	"github.com/kubego/kubego/kubegotest"
)

// Through the API server, as a cluster calls them: a CronJob is stored
// defaulted, one with a schedule that does not parse is refused on
// create and on update with the field at fault, and no Job is started
// for a refused one.
func TestWebhooksDefaultAndRefuseOnTheServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		cj := e.create(cronJob("ok", "@daily", nil))
		if cj.Spec.ConcurrencyPolicy != v1.AllowConcurrent || cj.Spec.SuccessfulJobsHistoryLimit == nil || *cj.Spec.SuccessfulJobsHistoryLimit != 3 {
			t.Fatalf("stored spec not defaulted: %+v", cj.Spec)
		}
		_, err := e.cronJobs.Create(t.Context(), cronJob("bad", "61 * * * *", nil), metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `admission webhook "vcronjob.kb.io" denied the request`) || !strings.Contains(err.Error(), "spec.schedule") {
			t.Fatalf("create with a bad schedule: err = %v, want the validating webhook's Invalid", err)
		}
		cj = e.get("ok")
		cj.Spec.Schedule = "* * *"
		_, err = e.cronJobs.Update(t.Context(), cj, metav1.UpdateOptions{})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.schedule") {
			t.Fatalf("update to a bad schedule: err = %v, want Invalid", err)
		}
		e.wantCondition("ok", controller.ConditionDegraded, metav1.ConditionFalse, "Healthy")
		if names := e.jobNames(); len(names) != 0 {
			t.Fatalf("Jobs %v", names)
		}
	})
}

// A CronJob stored before the validating webhook was installed, with a
// schedule that does not parse, is marked Degraded and not retried.
func TestUnparsableScheduleIsDegradedNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		if err := client.Typed[*admissionregistrationv1.ValidatingWebhookConfiguration](e.c).Delete(t.Context(), "cronjob", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		cj := e.create(cronJob("garbled", "every day", nil))
		time.Sleep(24 * time.Hour)
		kubegotest.Settle(t, e.ctrl)
		e.wantCondition("garbled", controller.ConditionDegraded, metav1.ConditionTrue, "InvalidSchedule")
		if names := e.jobNames(); len(names) != 0 {
			t.Fatalf("Jobs %v", names)
		}
		if !strings.Contains(e.events(cj), controller.ReasonInvalidSchedule) {
			t.Fatalf("no %s Event: %s", controller.ReasonInvalidSchedule, e.events(cj))
		}
	})
}
