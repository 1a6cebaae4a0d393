package controller_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/examples/cronjob/controller"
)

func ptr[T any](v T) *T { return &v }

// Two days of an hourly CronJob in fake time: one Job at each run, at
// that moment and not a second earlier, named after the run and
// annotated with it; the status lists it while it runs and the last
// schedule time; finished Jobs beyond the default history limit (3, from
// the defaulting webhook) are deleted, oldest first.
func TestStartsOneJobAtEachRunForDays(t *testing.T) {
	realStart := time.Now()
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		cj := e.create(cronJob("hourly", "0 * * * *", nil))
		if s := cj.Spec; s.ConcurrencyPolicy != v1.AllowConcurrent || s.Suspend == nil || *s.Suspend ||
			s.SuccessfulJobsHistoryLimit == nil || *s.SuccessfulJobsHistoryLimit != 3 || s.FailedJobsHistoryLimit == nil || *s.FailedJobsHistoryLimit != 1 {
			t.Fatalf("spec not defaulted by the webhook: %+v", s)
		}
		start := cj.CreationTimestamp.Time
		e.wantJobs("at creation", "hourly")
		e.sleepUntil(hour(start, 1).Add(-time.Second))
		e.wantJobs("a second before the first run", "hourly")
		e.wantStatus("hourly", time.Time{})

		var kept []time.Time
		for n := 1; n <= 48; n++ {
			run := hour(start, n)
			e.sleepUntil(run)
			e.wantJobs("at the run", "hourly", append(kept, run)...)
			e.wantStatus("hourly", run, run)
			e.wantCondition("hourly", controller.ConditionProgressing, metav1.ConditionTrue, "JobsActive")
			job, err := e.jobs.Get(t.Context(), jobName("hourly", run), metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if job.Annotations[controller.ScheduledTimeAnnotation] != run.UTC().Format(time.RFC3339) || job.Labels["app"] != "hourly" || len(job.OwnerReferences) != 1 || job.OwnerReferences[0].UID != cj.UID {
				t.Fatalf("Job %s: annotations %v, labels %v, owners %v", job.Name, job.Annotations, job.Labels, job.OwnerReferences)
			}
			e.sleepUntil(run.Add(10 * time.Minute))
			e.finish(job.Name, batchv1.JobComplete)
			kept = append(kept, run)
			kept = kept[max(0, len(kept)-3):]
			e.wantJobs("after it completed", "hourly", kept...)
			e.wantStatus("hourly", run)
			e.wantCondition("hourly", controller.ConditionAvailable, metav1.ConditionTrue, "AllJobsCompleted")
			e.wantCondition("hourly", controller.ConditionProgressing, metav1.ConditionFalse, "NoJobsActive")
		}
	})
	t.Logf("48 hours of schedule took %s of real time", time.Since(realStart))
}

// Forbid: a run due while a Job is active is skipped, and started when
// that Job finishes (late, since no starting deadline forbids it).
func TestForbidWaitsForTheActiveJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		cj := e.create(cronJob("forbid", "0 * * * *", func(s *v1.CronJobSpec) { s.ConcurrencyPolicy = v1.ForbidConcurrent }))
		start := cj.CreationTimestamp.Time
		h1, h2, h3 := hour(start, 1), hour(start, 2), hour(start, 3)
		e.sleepUntil(h1)
		e.wantJobs("first run", "forbid", h1)
		e.sleepUntil(h2)
		e.wantJobs("second run, first still active", "forbid", h1)
		e.wantStatus("forbid", h1, h1)
		if !strings.Contains(e.events(cj), controller.ReasonSkippedForbidden) {
			t.Errorf("no %s Event: %s", controller.ReasonSkippedForbidden, e.events(cj))
		}
		e.sleepUntil(h2.Add(30 * time.Minute))
		e.finish(jobName("forbid", h1), batchv1.JobComplete)
		e.wantJobs("first finished: the skipped run starts", "forbid", h1, h2)
		e.wantStatus("forbid", h2, h2)
		e.finish(jobName("forbid", h2), batchv1.JobComplete)
		e.sleepUntil(h3)
		e.wantJobs("third run", "forbid", h1, h2, h3)
	})
}

// Forbid with a starting deadline: the skipped run is not started when
// the active Job finishes after the deadline; the next run is.
func TestForbidWithDeadlineDropsTheSkippedRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		cj := e.create(cronJob("late", "0 * * * *", func(s *v1.CronJobSpec) {
			s.ConcurrencyPolicy = v1.ForbidConcurrent
			s.StartingDeadlineSeconds = ptr[int64](600)
		}))
		start := cj.CreationTimestamp.Time
		h1, h2, h3 := hour(start, 1), hour(start, 2), hour(start, 3)
		e.sleepUntil(h2.Add(30 * time.Minute))
		e.finish(jobName("late", h1), batchv1.JobComplete)
		e.wantJobs("finished after the skipped run's deadline", "late", h1)
		e.wantStatus("late", h1)
		e.sleepUntil(h3)
		e.wantJobs("next run", "late", h1, h3)
	})
}

// Replace: the active Job is deleted and the run's Job replaces it.
func TestReplaceDeletesTheActiveJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		cj := e.create(cronJob("replace", "0 * * * *", func(s *v1.CronJobSpec) { s.ConcurrencyPolicy = v1.ReplaceConcurrent }))
		start := cj.CreationTimestamp.Time
		h1, h2 := hour(start, 1), hour(start, 2)
		e.sleepUntil(h1)
		e.wantJobs("first run", "replace", h1)
		e.sleepUntil(h2)
		e.wantJobs("second run replaced the first", "replace", h2)
		e.wantStatus("replace", h2, h2)
		if !strings.Contains(e.events(cj), controller.ReasonDeleted) {
			t.Errorf("no %s Event: %s", controller.ReasonDeleted, e.events(cj))
		}
	})
}

// Allow: Jobs of successive runs run side by side, all in the status.
func TestAllowRunsJobsSideBySide(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		cj := e.create(cronJob("allow", "*/20 * * * *", nil))
		start := cj.CreationTimestamp.Time
		runs := []time.Time{start.Truncate(time.Hour).Add(20 * time.Minute), start.Truncate(time.Hour).Add(40 * time.Minute), hour(start, 1)}
		for i, run := range runs {
			e.sleepUntil(run)
			e.wantJobs("run", "allow", runs[:i+1]...)
			e.wantStatus("allow", run, runs[:i+1]...)
		}
		e.finish(jobName("allow", runs[1]), batchv1.JobFailed)
		e.wantStatus("allow", runs[2], runs[0], runs[2])
		e.wantCondition("allow", controller.ConditionDegraded, metav1.ConditionTrue, "JobsFailed")
		e.wantCondition("allow", controller.ConditionAvailable, metav1.ConditionFalse, "JobsFailed")
	})
}

// Suspended, a CronJob starts nothing; resumed, it starts only the
// latest run it missed (at once), then keeps its schedule.
func TestSuspendAndResume(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		cj := e.create(cronJob("paused", "0 * * * *", func(s *v1.CronJobSpec) { s.Suspend = ptr(true) }))
		start := cj.CreationTimestamp.Time
		e.sleepUntil(hour(start, 5).Add(30 * time.Minute))
		e.wantJobs("suspended for five runs", "paused")
		e.wantStatus("paused", time.Time{})
		e.wantCondition("paused", controller.ConditionAvailable, metav1.ConditionFalse, "Suspended")
		e.update("paused", func(s *v1.CronJobSpec) { s.Suspend = ptr(false) })
		e.wantJobs("resumed: the latest missed run", "paused", hour(start, 5))
		e.sleepUntil(hour(start, 6))
		e.wantJobs("next run", "paused", hour(start, 5), hour(start, 6))
		e.update("paused", func(s *v1.CronJobSpec) { s.Suspend = ptr(true) })
		e.sleepUntil(hour(start, 8))
		e.wantJobs("suspended again", "paused", hour(start, 5), hour(start, 6))
	})
}

// A run missed by more than startingDeadlineSeconds is not started; one
// within it is.
func TestStartingDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		deadline := func(s *v1.CronJobSpec) { s.Suspend = ptr(true); s.StartingDeadlineSeconds = ptr[int64](600) }
		cj := e.create(cronJob("soon", "0 * * * *", deadline))
		e.create(cronJob("toolate", "0 * * * *", deadline))
		start := cj.CreationTimestamp.Time
		h1, h2 := hour(start, 1), hour(start, 2)
		e.sleepUntil(h1.Add(5 * time.Minute))
		e.update("soon", func(s *v1.CronJobSpec) { s.Suspend = ptr(false) })
		e.sleepUntil(h1.Add(20 * time.Minute))
		e.update("toolate", func(s *v1.CronJobSpec) { s.Suspend = ptr(false) })
		if got, want := e.jobNames(), []string{jobName("soon", h1)}; !equal(got, want) {
			t.Fatalf("Jobs %v, want %v: only the run within its deadline", got, want)
		}
		e.sleepUntil(h2)
		if got, want := e.jobNames(), []string{jobName("soon", h1), jobName("soon", h2), jobName("toolate", h2)}; !equal(got, want) {
			t.Fatalf("Jobs %v, want %v", got, want)
		}
	})
}

// History limits: only the latest successfulJobsHistoryLimit successful
// and failedJobsHistoryLimit failed Jobs are kept; active ones never
// count.
func TestHistoryLimitsPruneTheOldestFinishedJobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		cj := e.create(cronJob("history", "0 * * * *", func(s *v1.CronJobSpec) {
			s.SuccessfulJobsHistoryLimit = ptr[int32](2)
			s.FailedJobsHistoryLimit = ptr[int32](1)
		}))
		start := cj.CreationTimestamp.Time
		h := func(n int) time.Time { return hour(start, n) }
		outcome := []batchv1.JobConditionType{batchv1.JobComplete, batchv1.JobFailed, batchv1.JobComplete, batchv1.JobFailed, batchv1.JobComplete, batchv1.JobComplete}
		for n, o := range outcome {
			e.sleepUntil(h(n + 1))
			e.finish(jobName("history", h(n+1)), o)
		}
		// Successful: 1, 3, 5, 6 (keep 5, 6); failed: 2, 4 (keep 4).
		e.wantJobs("after six runs", "history", h(4), h(5), h(6))
		e.sleepUntil(h(7))
		e.wantJobs("an active Job is not history", "history", h(4), h(5), h(6), h(7))
		e.update("history", func(s *v1.CronJobSpec) { s.SuccessfulJobsHistoryLimit = ptr[int32](0) })
		e.wantJobs("limit lowered to 0", "history", h(4), h(7))
		e.finish(jobName("history", h(7)), batchv1.JobComplete)
		e.wantJobs("limit 0", "history", h(4))
		e.wantStatus("history", h(7))
		e.sleepUntil(h(7).Add(59 * time.Minute))
		e.wantJobs("a pruned run is not started again", "history", h(4))
	})
}

func equal(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

// Hours of an every-minute schedule missed (suspended, no deadline): on
// resume the latest run starts, once, with a Warning Event; the CronJob
// is not stuck.
func TestManyMissedRunsStartOnlyTheLatest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t)
		cj := e.create(cronJob("minutely", "* * * * *", func(s *v1.CronJobSpec) { s.Suspend = ptr(true) }))
		start := cj.CreationTimestamp.Time
		latest := start.Truncate(time.Minute).Add(3 * time.Hour)
		e.sleepUntil(latest.Add(30 * time.Second))
		e.update("minutely", func(s *v1.CronJobSpec) { s.Suspend = ptr(false) })
		e.wantJobs("resumed after 180 missed runs", "minutely", latest)
		if !strings.Contains(e.events(cj), controller.ReasonTooManyMissed) {
			t.Errorf("no %s Event: %s", controller.ReasonTooManyMissed, e.events(cj))
		}
		e.sleepUntil(latest.Add(time.Minute))
		e.wantJobs("next minute", "minutely", latest, latest.Add(time.Minute))
	})
}
