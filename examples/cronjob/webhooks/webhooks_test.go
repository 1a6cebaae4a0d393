package webhooks_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/examples/cronjob/webhooks"
)

func TestDefaultFillsOnlyWhatIsUnset(t *testing.T) {
	yes, five, two := true, int32(5), int32(2)
	for _, tc := range []struct {
		name string
		spec v1.CronJobSpec
		want string
	}{
		{"empty", v1.CronJobSpec{}, "Allow false 3 1"},
		{"all set", v1.CronJobSpec{ConcurrencyPolicy: v1.ForbidConcurrent, Suspend: &yes, SuccessfulJobsHistoryLimit: &five, FailedJobsHistoryLimit: &two}, "Forbid true 5 2"},
		{"policy set", v1.CronJobSpec{ConcurrencyPolicy: v1.ReplaceConcurrent}, "Replace false 3 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cj := &v1.CronJob{Spec: tc.spec}
			if err := webhooks.Default(context.Background(), cj); err != nil {
				t.Fatal(err)
			}
			s := cj.Spec
			if got := fmt.Sprint(s.ConcurrencyPolicy, " ", *s.Suspend, " ", *s.SuccessfulJobsHistoryLimit, " ", *s.FailedJobsHistoryLimit); got != tc.want {
				t.Fatalf("defaulted to %q, want %q", got, tc.want)
			}
		})
	}
}

func TestValidateRefusesBadSchedulesAndLongNames(t *testing.T) {
	for _, tc := range []struct {
		name, cronJob, schedule string
		fields                  []string // the fields named by the Invalid error; none means valid
	}{
		{"valid", "hello", "*/5 * * * *", nil},
		{"descriptor", "hello", "@hourly", nil},
		{"longest name", strings.Repeat("a", webhooks.MaxNameLength), "@daily", nil},
		{"bad schedule", "hello", "every minute", []string{"spec.schedule"}},
		{"empty schedule", "hello", "", []string{"spec.schedule"}},
		{"out of range", "hello", "61 * * * *", []string{"spec.schedule"}},
		{"name too long", strings.Repeat("a", webhooks.MaxNameLength+1), "@daily", []string{"metadata.name"}},
		{"both", strings.Repeat("a", 60), "* *", []string{"metadata.name", "spec.schedule"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := webhooks.Validate(&v1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: tc.cronJob}, Spec: v1.CronJobSpec{Schedule: tc.schedule}})
			if len(tc.fields) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var se *apierrors.StatusError
			if !errors.As(err, &se) || !apierrors.IsInvalid(err) {
				t.Fatalf("err = %v, want an Invalid StatusError", err)
			}
			var got []string
			for _, c := range se.ErrStatus.Details.Causes {
				got = append(got, c.Field)
			}
			if strings.Join(got, ",") != strings.Join(tc.fields, ",") {
				t.Fatalf("fields %v, want %v (%v)", got, tc.fields, err)
			}
		})
	}
}

func ExampleValidate() {
	cj := &v1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly"}, Spec: v1.CronJobSpec{Schedule: "0 25 * * *"}}
	fmt.Println(webhooks.Validate(cj))
	// Output:
	// CronJob.batch.tutorial.kubebuilder.io "nightly" is invalid: spec.schedule: Invalid value: "0 25 * * *": cron: invalid schedule "0 25 * * *": hour: 25 is out of range 0-23
}
