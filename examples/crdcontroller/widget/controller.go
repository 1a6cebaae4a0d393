package widget

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/manager"
)

// Reconciler writes each Widget's status from its spec.
type Reconciler struct {
	cache   *informer.Reader[*Widget]
	widgets *client.Resource[*Widget]
}

// Setup adds the Widget controller to mgr, whose client must know the type
// (Register in manager.Options.Client.Registry).
func Setup(mgr *manager.Manager) (*controller.Controller, error) {
	cache, err := informer.NewReader[*Widget](mgr, informer.ReaderOptions{})
	if err != nil {
		return nil, err
	}
	r := &Reconciler{cache: cache, widgets: client.Typed[*Widget](mgr.Client())}
	return mgr.NewController(controller.Options{
		Name:       "widgets",
		Reconciler: r,
		// Owns sources would find Widget as their owner kind through the
		// Manager's client, whose Registry knows the type.
		Sources: []controller.Source{
			controller.For[*Widget]{Predicates: []controller.Predicate{controller.GenerationChanged}},
		},
	})
}

// Kind is the group/kind of Widgets.
var Kind = schema.GroupKind{Group: Resource.Group, Kind: "Widget"}

// Reconcile records the spec of the current generation in status.
func (r *Reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	w, err := r.cache.Get(ctx, req.Key)
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil // deleted
	}
	if err != nil {
		return controller.Result{}, err
	}
	if w.Status.ObservedGeneration == w.Generation {
		return controller.Result{}, nil
	}
	if w.Spec.Size < 0 {
		// Retrying cannot fix a bad spec; the next edit enqueues it again.
		return controller.Result{}, controller.TerminalError(fmt.Errorf("widget %s: negative size %d", req, w.Spec.Size))
	}
	patch, err := json.Marshal(map[string]any{"status": Status{
		ObservedGeneration: w.Generation,
		Summary:            fmt.Sprintf("%d %s widget(s)", w.Spec.Size, w.Spec.Color),
	}})
	if err != nil {
		return controller.Result{}, controller.TerminalError(err)
	}
	// A merge patch of the status subresource: the cached w is not touched.
	_, err = r.widgets.Namespace(req.Namespace).Patch(ctx, req.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "widgets"}, "status")
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil
	}
	return controller.Result{}, err
}
