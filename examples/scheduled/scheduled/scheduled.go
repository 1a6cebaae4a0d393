// Package scheduled is a controller whose work is due at times of its
// own: a ConfigMap annotated scheduled.kubego.io/every=<duration> is due
// every such period after its creation, and each time a due moment has
// passed the controller writes it in the annotation
// scheduled.kubego.io/last-run and counts it in scheduled.kubego.io/runs.
// Between moments it asks to be called again when the next one comes
// (Result.RequeueAfter): nothing in the cluster changes at those times, so
// no event would wake it.
//
// Moments missed while the controller was not running are not replayed:
// the next reconcile records the latest one passed, once, as a CronJob
// with no backfill. The time comes from Options.Clock; its tests leave it
// nil and run in a testing/synctest bubble, where the wall clock itself
// is fake, so hours of schedule pass in milliseconds.
package scheduled

import (
	"context"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/clock"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/objects"
)

// Annotations the controller reads and writes.
const (
	// Every is the period, a Go duration of at least MinPeriod ("90m").
	Every = "scheduled.kubego.io/every"
	// LastRun is the latest due moment handled, in RFC 3339.
	LastRun = "scheduled.kubego.io/last-run"
	// Runs counts the due moments handled.
	Runs = "scheduled.kubego.io/runs"
)

// MinPeriod is the shortest period accepted.
const MinPeriod = time.Minute

// Options configure Setup; the zero value is useful.
type Options struct {
	// Name is the controller's name. Empty means "scheduled".
	Name string
	// Clock tells the time. Nil means the wall clock.
	Clock clock.Clock
}

// Reconciler records the due moments of one ConfigMap.
type Reconciler struct {
	clock      clock.Clock
	configMaps *informer.Reader[*corev1.ConfigMap]
	client     *client.Resource[*corev1.ConfigMap]
}

// Setup adds the controller to mgr. Since a selector cannot choose by
// annotation, it declares mgr's ConfigMap informer as the one of the
// ConfigMaps labelled Label=true (so it watches and caches only those),
// and reads the Every annotation of those.
func Setup(mgr *manager.Manager, opts Options) (*controller.Controller, error) {
	if opts.Name == "" {
		opts.Name = "scheduled"
	}
	if err := mgr.Declare(informer.Declare[*corev1.ConfigMap](informer.SharedOptions{LabelSelector: Label + "=true"})); err != nil {
		return nil, err
	}
	cms, err := informer.NewReader[*corev1.ConfigMap](mgr, informer.ReaderOptions{})
	if err != nil {
		return nil, err
	}
	r := &Reconciler{
		clock:      clock.Or(opts.Clock),
		configMaps: cms,
		client:     client.Typed[*corev1.ConfigMap](mgr.Client()).DiscardResults(),
	}
	return mgr.NewController(controller.Options{
		Name:       opts.Name,
		Reconciler: r,
		Clock:      opts.Clock,
		Sources: []controller.Source{
			controller.For[*corev1.ConfigMap]{},
		},
	})
}

// Label marks the ConfigMaps the controller follows (value "true").
const Label = "scheduled.kubego.io"

// Reconcile records the latest due moment of the ConfigMap named by req if
// it has not been recorded, and asks to be called at the next one.
func (r *Reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	cm, err := r.configMaps.Get(ctx, req.Key)
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	every, err := time.ParseDuration(cm.Annotations[Every])
	if err != nil || every < MinPeriod {
		// Retrying cannot help: a change of the annotation enqueues it.
		return controller.Result{}, controller.TerminalError(fmt.Errorf("annotation %s=%q: want a duration of at least %s", Every, cm.Annotations[Every], MinPeriod))
	}
	now := r.clock.Now()
	created := cm.CreationTimestamp.Time
	passed := int64(now.Sub(created) / every) // due moments passed so far
	next := created.Add(time.Duration(passed+1) * every)
	if passed == 0 {
		return controller.Result{RequeueAfter: next.Sub(now)}, nil
	}
	latest := created.Add(time.Duration(passed) * every)
	if last, err := time.Parse(time.RFC3339, cm.Annotations[LastRun]); err != nil || last.Before(latest) {
		runs, _ := strconv.Atoi(cm.Annotations[Runs])
		want := cm.DeepCopy()
		want.Annotations[LastRun] = latest.UTC().Format(time.RFC3339)
		want.Annotations[Runs] = strconv.Itoa(runs + 1)
		if _, err := objects.Patch(ctx, r.client, cm, want, objects.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return controller.Result{}, err
		}
	}
	return controller.Result{RequeueAfter: next.Sub(now)}, nil
}
