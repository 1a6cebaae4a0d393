package controller

import (
	batchv1 "k8s.io/api/batch/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/clock"
	kubecontroller "github.com/kubego/kubego/controller"
	v1 "github.com/kubego/kubego/examples/cronjob/api/v1"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/objects"
	"github.com/kubego/kubego/rbac"
	"github.com/kubego/kubego/record"
)

// Name is the controller's name: its metrics label and the reporting
// controller of its Events.
const Name = "cronjob-controller"

// ScheduledTimeAnnotation is the annotation of each Job the controller
// creates that holds the time of its run, in RFC 3339.
const ScheduledTimeAnnotation = "batch.tutorial.kubebuilder.io/scheduled-at"

// OwnerIndex is the name of the Job cache's index by controlling CronJob:
// its values are "namespace/name" of the CronJob.
const OwnerIndex = "cronjob-owner"

// Options configure Setup; the zero value is useful.
type Options struct {
	// Clock tells the time. Nil means the wall clock.
	Clock clock.Clock
}

// Reconciler starts and cleans up the Jobs of one CronJob.
type Reconciler struct {
	clock      clock.Clock
	cronJobs   *informer.Reader[*v1.CronJob]
	jobs       *informer.Reader[*batchv1.Job]
	cronClient *client.Resource[*v1.CronJob]
	jobClient  *client.Resource[*batchv1.Job]
	kinds      client.KindResolver
	events     *record.Recorder
}

// Setup adds the CronJob controller to mgr, whose client must know
// CronJob (v1.Register in manager.Options.Client.Registry). It declares
// mgr's Job informer with OwnerIndex, so it must run before anything else
// asks for Jobs.
func Setup(mgr *manager.Manager, opts Options) (*kubecontroller.Controller, error) {
	if err := mgr.Declare(informer.Declare[*batchv1.Job](informer.SharedOptions{
		Indexers: map[string]func(informer.Object) []string{
			OwnerIndex: objects.OwnerIndex(v1.GroupVersion.WithKind("CronJob").GroupKind(), objects.OwnerIndexOptions{ControllerOnly: true}),
		},
	})); err != nil {
		return nil, err
	}
	events, err := mgr.EventRecorder(Name)
	if err != nil {
		return nil, err
	}
	cronJobs, err := informer.NewReader[*v1.CronJob](mgr, informer.ReaderOptions{})
	if err != nil {
		return nil, err
	}
	jobs, err := informer.NewReader[*batchv1.Job](mgr, informer.ReaderOptions{})
	if err != nil {
		return nil, err
	}
	r := &Reconciler{
		clock:      clock.Or(opts.Clock),
		cronJobs:   cronJobs,
		jobs:       jobs,
		cronClient: client.Typed[*v1.CronJob](mgr.Client()).DiscardResults(),
		jobClient:  client.Typed[*batchv1.Job](mgr.Client()),
		kinds:      mgr.Client(),
		events:     events,
	}
	return mgr.NewController(kubecontroller.Options{
		Name:       "cronjob",
		Reconciler: r,
		Clock:      opts.Clock,
		// The writes, for the derived RBAC (reads come from the caches,
		// whose list and watch the Manager knows): the Jobs it runs and
		// deletes (a Job that already exists is read back), and the
		// CronJob's status.
		Permissions: []rbac.Permission{
			{Group: "batch", Resource: "jobs", Verbs: []string{"create", "get", "delete"}},
			{Group: v1.GroupVersion.Group, Resource: "cronjobs/status", Verbs: []string{"patch"}},
		},
		Sources: []kubecontroller.Source{
			// Every change, its own status writes included: a status
			// patch made from a cached CronJob that lagged behind an
			// earlier write is corrected by the reconcile that write
			// causes.
			kubecontroller.For[*v1.CronJob]{},
			// A Job created, finished or deleted enqueues its CronJob.
			kubecontroller.Owns[*batchv1.Job]{},
		},
	})
}
