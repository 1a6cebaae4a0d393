package controller_test

import (
	"strings"
	"testing"
	"testing/synctest"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/kubego/kubego/examples/cronjob/api/v1"
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
		cj.Spec.Schedule = "* * *"
		_, err = e.cronJobs.Update(t.Context(), cj, metav1.UpdateOptions{})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.schedule") {
			t.Fatalf("update to a bad schedule: err = %v, want Invalid", err)
		}
		if names := e.jobNames(); len(names) != 0 {
			t.Fatalf("Jobs %v", names)
		}
	})
}
