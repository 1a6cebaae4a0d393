package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	kubecontroller "github.com/kubego/kubego/controller"
	v1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/examples/cronjob/cron"
	"github.com/kubego/kubego/objects"
	"github.com/kubego/kubego/record"
)

// Event reasons.
const (
	ReasonCreated          = "SuccessfulCreate"
	ReasonDeleted          = "SuccessfulDelete"
	ReasonMissedSchedule   = "MissSchedule"
	ReasonInvalidSchedule  = "InvalidSchedule"
	ReasonTooManyMissed    = "TooManyMissedTimes"
	ReasonSkippedForbidden = "JobAlreadyActive"
)

// maxActiveRefs is how many active Jobs the status lists (the CRD allows
// no more): the latest ones.
const maxActiveRefs = 10

// Reconcile brings the Jobs of the CronJob named by req in line with its
// schedule, and asks to be called again at its next run.
func (r *Reconciler) Reconcile(ctx context.Context, req kubecontroller.Request) (kubecontroller.Result, error) {
	cj, err := r.cronJobs.Get(ctx, req.Key)
	if apierrors.IsNotFound(err) {
		return kubecontroller.Result{}, nil // deleted; the garbage collector deletes its Jobs
	}
	if err != nil {
		return kubecontroller.Result{}, err
	}
	if cj.DeletionTimestamp != nil {
		return kubecontroller.Result{}, nil // going away: start nothing more
	}
	owned, err := r.jobs.ByIndex(ctx, OwnerIndex, req.Key.String())
	if err != nil {
		return kubecontroller.Result{}, err
	}
	now := r.clock.Now().UTC()

	// Sort the Jobs; the latest run any of them was started for counts
	// as the last schedule time.
	var active, successful, failed []*batchv1.Job
	want := client.DeepCopy(cj) // the cached CronJob is never modified
	status := &want.Status
	for _, job := range owned {
		if ref := metav1.GetControllerOfNoCopy(job); ref == nil || ref.UID != cj.UID {
			continue // a Job of an earlier CronJob of the same name
		}
		switch finished(job) {
		case batchv1.JobComplete:
			successful = append(successful, job)
		case batchv1.JobFailed:
			failed = append(failed, job)
		default:
			active = append(active, job)
		}
		if t, ok := scheduledTime(job); ok && (status.LastScheduleTime == nil || t.After(status.LastScheduleTime.Time)) {
			status.LastScheduleTime = &metav1.Time{Time: t}
		}
	}

	// History limits: the oldest finished Jobs beyond them go.
	prunedSuccessful, prunedFailed := beyond(successful, cj.Spec.SuccessfulJobsHistoryLimit), beyond(failed, cj.Spec.FailedJobsHistoryLimit)
	for _, job := range slices.Concat(prunedSuccessful, prunedFailed) {
		if err := r.deleteJob(ctx, cj, job); err != nil {
			return kubecontroller.Result{}, err
		}
	}

	suspended := cj.Spec.Suspend != nil && *cj.Spec.Suspend
	var result kubecontroller.Result
	sched, schedErr := cron.Parse(cj.Spec.Schedule)
	switch {
	case suspended:
		// Resuming is a spec change, which enqueues the CronJob.
	case schedErr != nil:
		r.events.Eventf(cj, nil, record.Warning, ReasonInvalidSchedule, "Schedule", "%v", schedErr)
	default:
		if result, err = r.run(ctx, cj, sched, now, &active, status); err != nil {
			return kubecontroller.Result{}, err
		}
	}
	if status.Active, err = r.references(active); err != nil {
		return kubecontroller.Result{}, err
	}
	setConditions(status, now, suspended, schedErr, len(active), len(failed)-len(prunedFailed))
	if _, err := objects.PatchStatus(ctx, r.cronClient, cj, want, objects.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return kubecontroller.Result{}, err
	}
	if schedErr != nil && !suspended {
		// Retrying cannot help: a change of the schedule enqueues it.
		return kubecontroller.Result{}, kubecontroller.TerminalError(schedErr)
	}
	return result, nil
}

// run starts the due run of cj, if there is one the spec allows, adding
// its Job to active and its time to status; it returns when to come back.
func (r *Reconciler) run(ctx context.Context, cj *v1.CronJob, sched cron.Schedule, now time.Time, active *[]*batchv1.Job, status *v1.CronJobStatus) (kubecontroller.Result, error) {
	due, many := dueRun(sched, cj, status.LastScheduleTime, now)
	var result kubecontroller.Result
	if next := sched.Next(now); !next.IsZero() {
		result.RequeueAfter = next.Sub(now)
	}
	if many {
		r.events.Eventf(cj, nil, record.Warning, ReasonTooManyMissed, "Schedule", "more than %d runs were missed; starting only the latest (%s)", manyMissed, due.Format(time.RFC3339))
	}
	if due.IsZero() {
		return result, nil
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil && due.Add(time.Duration(*d)*time.Second).Before(now) {
		r.events.Eventf(cj, nil, record.Warning, ReasonMissedSchedule, "Schedule", "missed the run of %s by more than %ds", due.Format(time.RFC3339), *d)
		return result, nil
	}
	switch cj.Spec.ConcurrencyPolicy {
	case v1.ForbidConcurrent:
		if len(*active) > 0 {
			r.events.Eventf(cj, nil, record.Normal, ReasonSkippedForbidden, "Schedule", "skipped the run of %s: a Job is still active", due.Format(time.RFC3339))
			return result, nil
		}
	case v1.ReplaceConcurrent:
		for _, job := range *active {
			if err := r.deleteJob(ctx, cj, job); err != nil {
				return result, err
			}
		}
		*active = nil
	}
	job, err := r.newJob(cj, due)
	if err != nil {
		return result, err
	}
	created, err := r.jobClient.Namespace(cj.Namespace).Create(ctx, job, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		// Started by an earlier reconcile whose Job the cache has not
		// shown yet: read it, so that the status does not lose it.
		existing, err := r.jobClient.Namespace(cj.Namespace).Get(ctx, job.Name, metav1.GetOptions{})
		if err != nil {
			return result, err
		}
		if ref := metav1.GetControllerOfNoCopy(existing); ref == nil || ref.UID != cj.UID {
			return result, fmt.Errorf("job %s/%s exists and is not controlled by cronjob %s", existing.Namespace, existing.Name, cj.Name)
		}
		if finished(existing) == "" {
			*active = append(*active, existing)
		}
	case err != nil:
		return result, err
	default:
		r.events.Eventf(cj, created, record.Normal, ReasonCreated, "Create", "created Job %s for the run of %s", created.Name, due.Format(time.RFC3339))
		*active = append(*active, created)
	}
	status.LastScheduleTime = &metav1.Time{Time: due}
	return result, nil
}

// manyMissed is the number of missed runs past which the controller
// warns, and stops walking runs one by one.
const manyMissed = 100

// dueRun returns the latest run of sched at or before now that has not
// started (after last, or after the CronJob's creation), looking back no
// further than the starting deadline; the zero time when there is none.
// It also reports whether more than manyMissed runs were missed.
func dueRun(sched cron.Schedule, cj *v1.CronJob, last *metav1.Time, now time.Time) (time.Time, bool) {
	earliest := cj.CreationTimestamp.Time
	if last != nil {
		earliest = last.Time
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil {
		if limit := now.Add(-time.Duration(*d) * time.Second); limit.After(earliest) {
			earliest = limit
		}
	}
	// latest walks the runs after from up to now, at most limit of them
	// (no limit when negative), and returns the last one and how many.
	latest := func(from time.Time, limit int) (due time.Time, n int) {
		for t := sched.Next(from.UTC()); !t.IsZero() && !t.After(now) && (limit < 0 || n < limit); t = sched.Next(t) {
			due, n = t, n+1
		}
		return due, n
	}
	due, n := latest(earliest, manyMissed+1)
	if n <= manyMissed {
		return due, false
	}
	if every := sched.Every(); every > 0 {
		first := sched.Next(earliest.UTC())
		return first.Add(now.Sub(first) / every * every), true
	}
	// Many runs missed: rather than walk every run since earliest (an
	// @every 1s schedule missed for a year has millions), look back from
	// now in windows four times longer each time; the first window with a
	// run holds the latest, and few runs, since the window before it,
	// a quarter as long, had none.
	for back := time.Minute; ; back *= 4 {
		from := now.Add(-back)
		if !from.After(due) {
			from = due
		}
		if d, _ := latest(from, -1); !d.IsZero() {
			return d, true
		}
		if from.Equal(due) {
			return due, true
		}
	}
}

// newJob returns the Job of cj's run at t, controlled by cj.
func (r *Reconciler) newJob(cj *v1.CronJob, t time.Time) (*batchv1.Job, error) {
	tmpl := cj.Spec.JobTemplate.DeepCopy()
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   cj.Namespace,
			Name:        fmt.Sprintf("%s-%d", cj.Name, t.Unix()),
			Labels:      tmpl.Labels,
			Annotations: tmpl.Annotations,
		},
		Spec: tmpl.Spec,
	}
	if job.Annotations == nil {
		job.Annotations = map[string]string{}
	}
	job.Annotations[ScheduledTimeAnnotation] = t.UTC().Format(time.RFC3339)
	if err := objects.SetControllerReference(cj, job, r.kinds); err != nil {
		return nil, err
	}
	return job, nil
}

// deleteJob deletes job, letting the garbage collector delete its Pods.
func (r *Reconciler) deleteJob(ctx context.Context, cj *v1.CronJob, job *batchv1.Job) error {
	background := metav1.DeletePropagationBackground
	err := r.jobClient.Namespace(job.Namespace).Delete(ctx, job.Name, metav1.DeleteOptions{
		PropagationPolicy: &background,
		Preconditions:     &metav1.Preconditions{UID: &job.UID},
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone already, or another Job of that name
	}
	if err != nil {
		return err
	}
	r.events.Eventf(cj, job, record.Normal, ReasonDeleted, "Delete", "deleted Job %s", job.Name)
	return nil
}

// references returns the status references to the latest active Jobs.
// They carry no resourceVersion, so that a Job's progress does not
// rewrite its CronJob's status.
func (r *Reconciler) references(active []*batchv1.Job) ([]corev1.ObjectReference, error) {
	slices.SortFunc(active, func(a, b *batchv1.Job) int { return compareRuns(b, a) })
	active = active[:min(len(active), maxActiveRefs)]
	refs := make([]corev1.ObjectReference, 0, len(active))
	for _, job := range active {
		ref, err := objects.Reference(job, r.kinds)
		if err != nil {
			return nil, err
		}
		ref.ResourceVersion = ""
		refs = append(refs, ref)
	}
	slices.SortFunc(refs, func(a, b corev1.ObjectReference) int { return strings.Compare(a.Name, b.Name) })
	if len(refs) == 0 {
		return nil, nil
	}
	return refs, nil
}

// finished returns JobComplete or JobFailed for a Job whose condition of
// that type is true, and "" for a Job still running.
func finished(job *batchv1.Job) batchv1.JobConditionType {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c.Type
		}
	}
	return ""
}

// scheduledTime reads the run time the controller wrote on job.
func scheduledTime(job *batchv1.Job) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339, job.Annotations[ScheduledTimeAnnotation])
	return t, err == nil
}

// beyond returns the oldest jobs beyond the limit kept; a nil limit keeps
// them all.
func beyond(jobs []*batchv1.Job, limit *int32) []*batchv1.Job {
	if limit == nil || len(jobs) <= int(*limit) {
		return nil
	}
	slices.SortFunc(jobs, compareRuns)
	return jobs[:len(jobs)-int(*limit)]
}

// compareRuns orders Jobs by run time (their start time when they carry
// none), oldest first, then by name.
func compareRuns(a, b *batchv1.Job) int {
	ta, tb := runTime(a), runTime(b)
	if c := ta.Compare(tb); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

func runTime(job *batchv1.Job) time.Time {
	if t, ok := scheduledTime(job); ok {
		return t
	}
	if job.Status.StartTime != nil {
		return job.Status.StartTime.Time
	}
	return job.CreationTimestamp.Time
}
