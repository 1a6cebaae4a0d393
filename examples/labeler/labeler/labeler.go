// Package labeler is a controller that gives every Deployment the label
// sync-by=<controller name> when it has none.
//
// It is a small complete controller: a For source with a predicate, a
// cache read through a Reader, and a write through a patch. It needs only
// labels, so it watches and caches Deployments' metadata alone
// (controller.ForMetadata): the API server sends, and the labeler decodes
// and keeps, a fraction of each object. It also watches only the
// Deployments that lack the label (label selector !sync-by), so labeled
// ones are neither cached nor followed, and its own patches enqueue
// nothing. The cached object is never modified: the change is sent as a
// JSON merge patch that only adds the label, so it carries no
// resourceVersion and cannot conflict with other writers, and a Deployment
// deleted in the meantime is simply skipped.
package labeler

import (
	"context"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/manager"
	"github.com/kubego/kubego/rbac"
)

// Label is the label the labeler adds.
const Label = "sync-by"

// DefaultWorkers is the number of concurrent reconciles when
// Options.Workers is zero.
const DefaultWorkers = 4

// Options configure Setup. The zero value labels Deployments in every
// namespace as "labeler".
type Options struct {
	// Name is the controller name: the label's value, the field manager,
	// and the "controller" label of metrics. Empty means "labeler".
	Name string
	// Namespace limits the labeler to one namespace; empty means all.
	Namespace string
	// Workers is the number of concurrent reconciles. Zero means
	// DefaultWorkers.
	Workers int
	// Decoded keeps the cached metadata as shared decoded objects
	// (informer.SharedOptions.Decoded) instead of their encodings: reads
	// cost no decode, the cache about three times the memory.
	Decoded bool
}

// Reconciler labels one Deployment.
type Reconciler struct {
	name        string
	deployments *informer.Reader[*metav1.PartialObjectMetadata]
	client      *client.Resource[*appsv1.Deployment]
	patch       []byte
}

// Setup adds the labeler's controller to mgr.
func Setup(mgr *manager.Manager, opts Options) (*controller.Controller, error) {
	if opts.Name == "" {
		opts.Name = "labeler"
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{Label: opts.Name}}})
	if err != nil {
		return nil, err
	}
	// The informer holds only Deployments that lack the label: the API
	// server filters the rest out, so a labeled Deployment costs the
	// labeler no memory and none of its later updates (a rollout's status
	// writes) reach it. One the labeler labels leaves the selection (a
	// DELETED event); one whose label is removed comes back (ADDED) and
	// is labeled again.
	deployments := appsv1.SchemeGroupVersion.WithResource("deployments")
	err = mgr.Declare(informer.DeclareMetadata(deployments, informer.SharedOptions{Namespace: opts.Namespace, LabelSelector: "!" + Label, Decoded: opts.Decoded}))
	if err != nil {
		return nil, err
	}
	cache, err := informer.NewMetadataReader(mgr, deployments, informer.ReaderOptions{})
	if err != nil {
		return nil, err
	}
	r := &Reconciler{
		name:        opts.Name,
		deployments: cache,
		client:      client.Typed[*appsv1.Deployment](mgr.Client()).DiscardResults(),
		patch:       patch,
	}
	return mgr.NewController(controller.Options{
		Name:                    opts.Name,
		Reconciler:              r,
		MaxConcurrentReconciles: opts.Workers,
		// Its one write: the label patch. The list and watch of its
		// source are derived from the source (mgr.Permissions).
		Permissions: []rbac.Permission{{Group: "apps", Resource: "deployments", Verbs: []string{"patch"}, Namespace: opts.Namespace}},
		Sources: []controller.Source{
			// Only creations and label changes can make a Deployment need
			// the label, and only one that lacks it has work to do.
			controller.ForMetadata{Resource: deployments, Predicates: []controller.Predicate{controller.LabelsChanged, lacksLabel}},
		},
	})
}

// lacksLabel passes the creations and updates of Deployments without the
// label. A Delete needs no work: the Deployment is gone, or (leaving the
// informer's selection) has just been labeled.
func lacksLabel(e controller.Event) bool {
	if e.Type == controller.Delete {
		return false
	}
	_, has := e.Object.GetLabels()[Label]
	return !has
}

// Reconcile adds the label to the Deployment named by req if it lacks it.
func (r *Reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	d, err := r.deployments.Get(ctx, req.Key)
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil // deleted, or labeled since it was queued
	}
	if err != nil {
		return controller.Result{}, err
	}
	if _, has := d.Labels[Label]; has {
		return controller.Result{}, nil
	}
	_, err = r.client.Namespace(req.Namespace).Patch(ctx, req.Name, types.MergePatchType, r.patch, metav1.PatchOptions{FieldManager: r.name})
	switch {
	case apierrors.IsNotFound(err):
		return controller.Result{}, nil // deleted since the cache saw it
	case err != nil:
		return controller.Result{}, fmt.Errorf("labeling deployment %s: %w", req, err)
	}
	controller.LoggerFrom(ctx).Debug("labeled")
	return controller.Result{}, nil
}
