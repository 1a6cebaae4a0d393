package objects

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/client"
	"github.com/kubego/kubego/informer"
)

// Result says what CreateOrUpdate or CreateOrPatch did.
type Result string

const (
	// Unchanged: the object existed and mutate changed nothing; nothing
	// was written.
	Unchanged Result = "unchanged"
	// Created: the object did not exist and was created.
	Created Result = "created"
	// Updated: the object existed and the changes were written.
	Updated Result = "updated"
)

// CreateOrUpdate makes the object named by obj's namespace (r's when obj
// has none) and name what mutate says: it reads the object from the
// server, calls mutate on it, and writes it with Update if mutate changed
// it (compared with equality.Semantic); if there is no such object, it
// calls mutate on a copy of obj, given r's namespace when it has none, and
// creates that. It returns the object
// the server stored (or read, when Unchanged) and what it did. obj itself
// is not modified.
//
// mutate sets the desired state on the object it is given, which may be a
// fresh copy of obj or the live object with fields set by others: it must
// set only the fields it owns, and must not change the name or namespace
// (ErrKeyChanged). Its error is returned as is, and nothing is written. A
// nil mutate changes nothing.
//
// The Update carries the resourceVersion read, so a concurrent change
// makes it fail with 409 Conflict (apierrors.IsConflict); wrap the call in
// client.RetryOnConflict to try again on fresh data. Status changes are
// ignored by Update on resources with a status subresource: use
// CreateOrPatch, which writes them.
func CreateOrUpdate[T informer.Object](ctx context.Context, r *client.Resource[T], obj T, mutate func(T) error) (T, Result, error) {
	r, cur, created, res, err := getOrCreate(ctx, r, obj, mutate)
	if err != nil || created {
		return cur, res, err
	}
	before := cur.DeepCopyObject()
	if err := mutateKeeping(cur, mutate); err != nil {
		return zeroOf[T](), Unchanged, err
	}
	if equality.Semantic.DeepEqual(before, cur) {
		return cur, Unchanged, nil
	}
	out, err := r.Update(ctx, cur, metav1.UpdateOptions{})
	if err != nil {
		return zeroOf[T](), Unchanged, err
	}
	return out, Updated, nil
}

// CreateOrPatch is CreateOrUpdate writing with JSON merge patches (see
// Patch) instead of an Update: one for the changes outside the status, and
// one to the status subresource for the changes of the status, each sent
// only when there are such changes. The patches carry no resourceVersion,
// so they do not conflict with concurrent writes of other fields. On
// creation the status set by mutate is sent with the create, which a
// resource with a status subresource ignores; it is written by the next
// call.
func CreateOrPatch[T informer.Object](ctx context.Context, r *client.Resource[T], obj T, mutate func(T) error) (T, Result, error) {
	r, cur, created, res, err := getOrCreate(ctx, r, obj, mutate)
	if err != nil || created {
		return cur, res, err
	}
	before := cur.DeepCopyObject().(T)
	if err := mutateKeeping(cur, mutate); err != nil {
		return zeroOf[T](), Unchanged, err
	}
	spec, status, err := diffParts(before, cur)
	if err != nil {
		return zeroOf[T](), Unchanged, err
	}
	if len(spec) == 0 && len(status) == 0 {
		return cur, Unchanged, nil
	}
	out := cur
	if len(spec) > 0 {
		if out, err = send(ctx, r, before, cur.GetName(), spec, PatchOptions{}); err != nil {
			return zeroOf[T](), Unchanged, err
		}
	}
	if len(status) > 0 {
		if out, err = send(ctx, r, before, cur.GetName(), status, PatchOptions{}, "status"); err != nil {
			return zeroOf[T](), Unchanged, err
		}
	}
	return out, Updated, nil
}

// getOrCreate reads the object obj names; when it does not exist, it
// creates a mutated copy of obj (created true). It returns r scoped to
// the object's namespace.
func getOrCreate[T informer.Object](ctx context.Context, r *client.Resource[T], obj T, mutate func(T) error) (*client.Resource[T], T, bool, Result, error) {
	var zero T
	if ns := obj.GetNamespace(); ns != "" {
		r = r.Namespace(ns)
	}
	cur, err := r.Get(ctx, obj.GetName(), metav1.GetOptions{})
	if err == nil {
		return r, cur, false, Unchanged, nil
	}
	if !apierrors.IsNotFound(err) {
		return r, zero, false, Unchanged, err
	}
	fresh, ok := obj.DeepCopyObject().(T)
	if !ok {
		return r, zero, false, Unchanged, fmt.Errorf("objects: DeepCopyObject of %T returned another type", obj)
	}
	if fresh.GetNamespace() == "" {
		fresh.SetNamespace(r.NamespaceName())
	}
	if err := mutateKeeping(fresh, mutate); err != nil {
		return r, zero, false, Unchanged, err
	}
	out, err := r.Create(ctx, fresh, metav1.CreateOptions{})
	if err != nil {
		return r, zero, false, Unchanged, err
	}
	return r, out, true, Created, nil
}

// mutateKeeping calls mutate on obj and checks that it kept the name and
// namespace.
func mutateKeeping[T informer.Object](obj T, mutate func(T) error) error {
	if mutate == nil {
		return nil
	}
	ns, name := obj.GetNamespace(), obj.GetName()
	if err := mutate(obj); err != nil {
		return err
	}
	if obj.GetNamespace() != ns || obj.GetName() != name {
		return fmt.Errorf("objects: %w by mutate: %s/%s became %s/%s", ErrKeyChanged, ns, name, obj.GetNamespace(), obj.GetName())
	}
	return nil
}

func zeroOf[T any]() T {
	var zero T
	return zero
}
