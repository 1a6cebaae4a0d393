package objects

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
)

// PatchOptions configure Patch and PatchStatus. The zero value sends a
// plain merge patch.
type PatchOptions struct {
	// OptimisticLock puts old's resourceVersion into the patch, so the
	// server refuses it with 409 Conflict (apierrors.IsConflict) when the
	// object changed since old was read. Off by default: without it the
	// patch applies to the current object, which is what a status write
	// from a cached copy wants.
	OptimisticLock bool
	// FieldManager names the writer in managedFields. Empty means the
	// client's (client.Options.FieldManager).
	FieldManager string
	// DryRun, set to []string{"All"}, has the server validate without
	// storing.
	DryRun []string
}

// Patch sends to the server the changes from old to new of everything but
// the status, as a JSON merge patch, and returns the object the server
// stored. old and new are the same object before and after a change (same
// namespace and name; ErrKeyChanged otherwise); new is usually a deep copy
// of old, modified. Neither is modified. When they do not differ outside
// the status, nothing is sent and new is returned.
//
// The request goes to old's namespace whatever r's is, so r may be the
// client of all namespaces (client.Typed[T](c)); a cluster-scoped object
// goes to r as it is.
//
// Server refusals are *apierrors.StatusError, as for r.Patch.
func Patch[T informer.Object](ctx context.Context, r *client.Resource[T], old, new T, opts PatchOptions) (T, error) {
	return patch(ctx, r, old, new, opts, false)
}

// PatchStatus sends the changes from old to new of the status, as a JSON
// merge patch to the status subresource, and returns the object the server
// stored. It is Patch for the status: changes outside the status are not
// sent. Use it instead of UpdateStatus on a copy of a cached object, which
// conflicts when the cache lags behind the server.
func PatchStatus[T informer.Object](ctx context.Context, r *client.Resource[T], old, new T, opts PatchOptions) (T, error) {
	return patch(ctx, r, old, new, opts, true)
}

func patch[T informer.Object](ctx context.Context, r *client.Resource[T], old, new T, opts PatchOptions, status bool) (T, error) {
	var zero T
	if old.GetName() != new.GetName() || old.GetNamespace() != new.GetNamespace() {
		return zero, fmt.Errorf("objects: %w: patch from %s/%s to %s/%s", ErrKeyChanged, old.GetNamespace(), old.GetName(), new.GetNamespace(), new.GetName())
	}
	spec, st, err := diffParts(old, new)
	if err != nil {
		return zero, err
	}
	p, sub := spec, []string(nil)
	if status {
		p, sub = st, []string{"status"}
	}
	if len(p) == 0 {
		return new, nil
	}
	return send(ctx, r, old, new.GetName(), p, opts, sub...)
}

// send writes merge patch p to the object name (or its subresource sub),
// adding old's resourceVersion with an optimistic lock.
func send[T informer.Object](ctx context.Context, r *client.Resource[T], old T, name string, p map[string]any, opts PatchOptions, sub ...string) (T, error) {
	var zero T
	if opts.OptimisticLock {
		md, _ := p["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
			p["metadata"] = md
		}
		md["resourceVersion"] = old.GetResourceVersion()
	}
	data, err := json.Marshal(p)
	if err != nil {
		return zero, fmt.Errorf("objects: encoding patch: %w", err)
	}
	if ns := old.GetNamespace(); ns != "" {
		r = r.Namespace(ns)
	}
	return r.Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{FieldManager: opts.FieldManager, DryRun: opts.DryRun}, sub...)
}

// diffParts returns the merge patch from old to new split in two: the
// patch of everything but the status, and the patch of the status alone
// (empty, or holding only "status").
func diffParts(old, new any) (spec, status map[string]any, err error) {
	o, err := toMap(old)
	if err != nil {
		return nil, nil, err
	}
	n, err := toMap(new)
	if err != nil {
		return nil, nil, err
	}
	so, sn := map[string]any{}, map[string]any{}
	if v, ok := o["status"]; ok {
		so["status"] = v
		delete(o, "status")
	}
	if v, ok := n["status"]; ok {
		sn["status"] = v
		delete(n, "status")
	}
	return diff(o, n), diff(so, sn), nil
}
