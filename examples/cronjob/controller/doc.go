// Package controller is the CronJob controller of the kubebuilder book,
// on kubego: it runs a CronJob's Job template on its schedule.
//
// Each reconcile of a CronJob reads its Jobs from the Job cache through an
// index by controlling CronJob (OwnerIndex), sorts them into active,
// successful and failed (by their Complete and Failed conditions), writes
// the active ones and the latest scheduled time in the CronJob's status,
// deletes the oldest finished Jobs beyond the history limits, and, unless
// the CronJob is suspended, starts the latest run whose time has passed
// and has not started yet, as the concurrency policy allows:
//
//   - Allow starts it beside the Jobs still running;
//   - Forbid skips it while a Job of the CronJob is active;
//   - Replace deletes the active Jobs and starts it.
//
// A run missed by more than startingDeadlineSeconds is not started (only
// runs within the deadline are looked at). Runs missed while the
// controller was down are not replayed one by one: only the latest starts.
// Between runs the reconcile asks to be called again at the next one
// (Result.RequeueAfter), since nothing in the cluster changes at that time.
//
// A Job's name is the CronJob's name and the Unix time of its run, so
// starting one run twice (after a cache that lagged behind a write) is an
// AlreadyExists answer, not a second Job. The schedule is read in UTC
// (package cron); the time comes from Options.Clock, and the tests run
// days of schedules in fake time.
package controller
