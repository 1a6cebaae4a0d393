package sharding

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/controller"
	"github.com/kubego/kubego/informer"
)

// GuardOptions configure Member.Guard. Both fields are required.
type GuardOptions struct {
	// Resource is the resource of the reconciled objects; the
	// acknowledgement of a drain patches their labels through it.
	Resource schema.GroupVersionResource
	// Get reads an object from the member's cache (an informer that uses
	// Member.Informer's options). A NotFound error (apierrors.IsNotFound)
	// means the object is gone or no longer this member's. ReaderGet
	// adapts an informer.Reader.
	Get func(ctx context.Context, key informer.Key) (metav1.Object, error)
}

// ReaderGet adapts r to GuardOptions.Get.
func ReaderGet[T informer.Object](r *informer.Reader[T]) func(ctx context.Context, key informer.Key) (metav1.Object, error) {
	return func(ctx context.Context, key informer.Key) (metav1.Object, error) {
		return r.Get(ctx, key)
	}
}

// Guard returns a Reconciler that runs inner only for objects this member
// owns and that are not being drained, and acknowledges drains:
//
//   - an object not in the cache (deleted, or moved to another member) is
//     not reconciled: a guarded reconciler never sees NotFound, so cleanup
//     at deletion belongs in a finalizer, which runs while the object
//     still exists;
//   - an object whose shard label names another member (a late retry of
//     one that moved) is not reconciled;
//   - an object carrying the drain label is not reconciled: the member
//     removes its shard and drain labels (a JSON patch that first tests
//     both, so a drain the sharder withdrew meanwhile is left alone) and
//     the sharder then assigns it to its new member;
//   - while the member holds no Lease nothing is reconciled.
//
// The controller never runs two reconciles of one Request at once, so the
// acknowledgement, made by a reconcile, comes after any reconcile of the
// object in flight on this member has returned; after it the object leaves
// the member's cache. That is what makes a handover safe: the new member
// gets the object only after the old one acknowledged.
//
// Guard fails with a *ConfigError when an option is missing.
func (m *Member) Guard(inner controller.Reconciler, opts GuardOptions) (controller.Reconciler, error) {
	switch {
	case inner == nil:
		return nil, &ConfigError{Field: "inner", Reason: "required"}
	case opts.Get == nil:
		return nil, &ConfigError{Field: "GuardOptions.Get", Reason: "required"}
	case opts.Resource.Resource == "":
		return nil, &ConfigError{Field: "GuardOptions.Resource", Reason: "required"}
	}
	return &guard{m: m, inner: inner, opts: opts}, nil
}

type guard struct {
	m     *Member
	inner controller.Reconciler
	opts  GuardOptions
}

func (g *guard) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	if !g.m.Active() {
		return controller.Result{}, nil
	}
	obj, err := g.opts.Get(ctx, req.Key)
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	ring := g.m.opts.Ring
	labels := obj.GetLabels()
	if labels[ShardLabel(ring)] != g.m.opts.Identity {
		return controller.Result{}, nil
	}
	if _, draining := labels[DrainLabel(ring)]; draining {
		return controller.Result{}, g.ack(ctx, obj)
	}
	return g.inner.Reconcile(ctx, req)
}

// ack removes the shard and drain labels of obj if both are still as the
// cache shows them.
func (g *guard) ack(ctx context.Context, obj metav1.Object) error {
	ring := g.m.opts.Ring
	shard := "/metadata/labels/" + jsonPointerEscape(ShardLabel(ring))
	drain := "/metadata/labels/" + jsonPointerEscape(DrainLabel(ring))
	patch, err := json.Marshal([]map[string]any{
		{"op": "test", "path": shard, "value": g.m.opts.Identity},
		{"op": "test", "path": drain, "value": obj.GetLabels()[DrainLabel(ring)]},
		{"op": "remove", "path": drain},
		{"op": "remove", "path": shard},
	})
	if err != nil {
		return err
	}
	r := g.m.meta.Resource(g.opts.Resource)
	if ns := obj.GetNamespace(); ns != "" {
		r = r.Namespace(ns)
	}
	_, err = r.Patch(ctx, obj.GetName(), types.JSONPatchType, patch, metav1.PatchOptions{})
	switch {
	case err == nil:
		if g.m.acks != nil {
			g.m.acks.Inc()
		}
		g.m.log.Debug("drained", "object", objectName(obj))
		return nil
	case apierrors.IsNotFound(err), unprocessable(err):
		// Gone, or the labels changed since the cache saw them (a failed
		// test): the newer state is on its way to the cache, and with it
		// another event for this object.
		return nil
	default:
		return &AckError{Object: objectName(obj), Err: err}
	}
}

// unprocessable reports a 422: how the API server answers a JSON patch
// whose test failed.
func unprocessable(err error) bool {
	var s apierrors.APIStatus
	return apierrors.IsInvalid(err) || (errors.As(err, &s) && s.Status().Code == http.StatusUnprocessableEntity)
}

func jsonPointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func objectName(obj metav1.Object) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}
