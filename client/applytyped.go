package client

import (
	"context"
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/apply"
	"github.com/kubego/kubego/informer"
)

// ApplyObjecter is an apply configuration that knows its JSON object, as
// *apply.Configuration[T] does. Apply sends that object as it is: nothing
// is pruned, so the zero values it holds stay owned.
type ApplyObjecter interface {
	ApplyObject() map[string]any
}

type applyTypeOnce struct {
	once sync.Once
	ty   any // *apply.Type[T]
	err  error
}

// ApplyType returns the apply.Type of T, built on first use and kept by c
// for its lifetime (building one reads T's schema; configuring with it is
// cheap). It fails with apply's *TypeError when T cannot be applied.
func ApplyType[T informer.Object](c *Client) (*apply.Type[T], error) {
	v, _ := c.applyTypes.LoadOrStore(reflect.TypeFor[T](), &applyTypeOnce{})
	o := v.(*applyTypeOnce)
	o.once.Do(func() { o.ty, o.err = apply.TypeOf[T]() })
	if o.err != nil {
		return nil, o.err
	}
	return o.ty.(*apply.Type[T]), nil
}

// ApplyFunc applies the fields set sets on a T and returns the object the
// server stored. set runs twice, on objects whose every field it can
// reach holds a placeholder, and the fields it set (zero values included)
// are what this field manager owns: see apply.Type.Configure for its
// rules (only write; lists start nil). Re-applying what the manager
// already owns changes nothing on the server: no write, the same
// resourceVersion.
func (r *Resource[T]) ApplyFunc(ctx context.Context, set func(T), opts ApplyOptions) (T, error) {
	return r.applyFunc(ctx, set, opts)
}

// ApplyStatusFunc is ApplyFunc on the status subresource.
func (r *Resource[T]) ApplyStatusFunc(ctx context.Context, set func(T), opts ApplyOptions) (T, error) {
	return r.applyFunc(ctx, set, opts, "status")
}

func (r *Resource[T]) applyFunc(ctx context.Context, set func(T), opts ApplyOptions, sub ...string) (T, error) {
	var zero T
	ty, err := ApplyType[T](r.k.c)
	if err != nil {
		return zero, err
	}
	cfg, err := ty.Configure(set)
	if err != nil {
		return zero, err
	}
	return r.apply(ctx, cfg, opts, sub...)
}

// Extract reads the object name and returns the part of it that manager
// owns through server-side apply (apply.Type.Extract); an empty manager is
// the one Apply would send. The result can be changed and applied again.
func (r *Resource[T]) Extract(ctx context.Context, name, manager string) (*apply.Configuration[T], error) {
	ty, err := ApplyType[T](r.k.c)
	if err != nil {
		return nil, err
	}
	live, err := r.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	if manager == "" {
		manager = r.k.c.applyManager
	}
	return ty.Extract(live, manager)
}
