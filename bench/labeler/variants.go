package main

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/examples/labeler/labeler"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/manager"
)

// variant is an alternative labeler design, for A/B runs against
// examples/labeler in one process on one control plane. It reconciles
// like examples/labeler (read the cache, merge-patch the label in if it
// is missing) but chooses its own watch:
//
//   - v0: the metadata informer of every Deployment with the LabelsChanged
//     predicate alone (examples/labeler before it filtered by label);
//   - typed: a typed *appsv1.Deployment informer with examples/labeler's
//     selector and predicates (a protobuf watch of whole objects instead
//     of PartialObjectMetadata).
type variant string

const (
	variantV0    variant = "v0"
	variantTyped variant = "typed"
)

func setupVariant(mgr *manager.Manager, v variant, ns string) error {
	name := "labeler"
	patch := []byte(`{"metadata":{"labels":{"` + labeler.Label + `":"` + name + `"}}}`)
	deployments := appsv1.SchemeGroupVersion.WithResource("deployments")
	c := client.Typed[*appsv1.Deployment](mgr.Client())
	lacks := func(e controller.Event) bool {
		if e.Type == controller.Delete {
			return false
		}
		_, has := e.Object.GetLabels()[labeler.Label]
		return !has
	}
	var get func(informer.Key) (metav1.Object, bool)
	var src controller.Source
	switch v {
	case variantV0:
		io := informer.SharedOptions{Namespace: ns}
		l := informer.SharedMetadata(mgr.Factory(), deployments, io).Lister()
		get = func(k informer.Key) (metav1.Object, bool) { return l.GetKey(k) }
		src = controller.ForMetadata(deployments, controller.SourceOptions{Informer: io, Predicates: []controller.Predicate{controller.LabelsChanged}})
	case variantTyped:
		io := informer.SharedOptions{Namespace: ns, LabelSelector: "!" + labeler.Label}
		l := informer.Shared[*appsv1.Deployment](mgr.Factory(), io).Lister()
		get = func(k informer.Key) (metav1.Object, bool) { return l.GetKey(k) }
		src = controller.For[*appsv1.Deployment](controller.SourceOptions{Informer: io, Predicates: []controller.Predicate{controller.LabelsChanged, lacks}})
	default:
		return fmt.Errorf("unknown labeler variant %q", v)
	}
	r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		d, ok := get(req.Key)
		if !ok {
			return controller.Result{}, nil
		}
		if _, has := d.GetLabels()[labeler.Label]; has {
			return controller.Result{}, nil
		}
		_, err := c.Namespace(req.Namespace).Patch(ctx, req.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: name})
		switch {
		case apierrors.IsNotFound(err):
			return controller.Result{}, nil
		case err != nil:
			return controller.Result{}, fmt.Errorf("labeling deployment %s: %w", req, err)
		}
		controller.LoggerFrom(ctx).Debug("labeled")
		return controller.Result{}, nil
	})
	_, err := mgr.NewController(controller.Options{
		Name:                    name,
		Reconciler:              r,
		MaxConcurrentReconciles: labeler.DefaultWorkers,
		Sources:                 []controller.Source{src},
	})
	return err
}
