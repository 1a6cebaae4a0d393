package dynamic

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/rest"
)

// ErrInvalidArgument is wrapped by errors about arguments refused before
// anything is sent (a nil object, an object without a name …).
var ErrInvalidArgument = errors.New("dynamic: invalid argument")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// Options configure a Client. The zero value is ready to use.
type Options struct {
	// FieldManager names every write (Create, Update, Patch, Apply and
	// their subresource forms) whose options name none. Empty leaves
	// Create, Update and Patch to the server, which names them after the
	// User-Agent up to its first "/" (the program's name by default), and
	// sends that same name with Apply, which needs one.
	FieldManager string
}

// Client reaches any resource by group/version/resource, with objects as
// *unstructured.Unstructured, in JSON. It is safe for concurrent use.
type Client struct {
	rest         *rest.Client
	fieldManager string // for every write; may be empty
	applyManager string // for Apply: never empty
}

// New returns a dynamic Client over rc.
func New(rc *rest.Client, opts Options) *Client {
	am := opts.FieldManager
	if am == "" {
		am = rc.FieldManager()
	}
	return &Client{rest: rc, fieldManager: opts.FieldManager, applyManager: am}
}

// NewForConfig builds a rest client from cfg and a dynamic Client over it.
func NewForConfig(cfg *rest.Config, opts Options) (*Client, error) {
	rc, err := rest.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return New(rc, opts), nil
}

// Resource returns the client of resource gvr, cluster-wide: all
// namespaces for a namespaced resource, or a cluster-scoped one.
func (c *Client) Resource(gvr schema.GroupVersionResource) *Resource {
	return &Resource{c: c, gvr: gvr}
}

// Resource is the client of one resource in one namespace (or cluster
// wide). It is an immutable value, safe for concurrent use. Objects passed
// in are not modified; objects returned belong to the caller. Server
// refusals are *apierrors.StatusError.
type Resource struct {
	c   *Client
	gvr schema.GroupVersionResource
	ns  string
}

// Namespace returns a copy of r scoped to namespace ns.
func (r *Resource) Namespace(ns string) *Resource {
	out := *r
	out.ns = ns
	return &out
}

func (r *Resource) request(verb string, pt types.PatchType, ns string) *rest.Request {
	var q *rest.Request
	if pt != "" {
		q = r.c.rest.Patch(pt)
	} else {
		q = r.c.rest.Verb(verb)
	}
	q = q.Group(r.gvr.Group).Version(r.gvr.Version).Resource(r.gvr.Resource).ContentType(rest.ContentTypeJSON)
	if ns == "" {
		ns = r.ns
	}
	if ns != "" {
		q = q.Namespace(ns)
	}
	return q
}

func decode(res rest.Result) (*unstructured.Unstructured, error) {
	if err := res.Error(); err != nil {
		return nil, err
	}
	out := &unstructured.Unstructured{}
	if err := res.Into(out); err != nil {
		return nil, err
	}
	return out, nil
}

func encode(obj *unstructured.Unstructured) ([]byte, error) {
	if obj == nil {
		return nil, invalid("nil object")
	}
	data, err := obj.MarshalJSON()
	if err != nil {
		return nil, invalid("encoding object: %v", err)
	}
	return data, nil
}

// Get returns the object called name, or its subresource.
func (r *Resource) Get(ctx context.Context, name string, opts metav1.GetOptions, subresources ...string) (*unstructured.Unstructured, error) {
	return decode(r.request("GET", "", "").Name(name).SubResource(subresources...).Params(&opts).Do(ctx))
}

// List returns one page of objects; see client.Resource.List for the
// options' meaning.
func (r *Resource) List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	res := r.request("GET", "", "").Params(&opts).Do(ctx)
	if err := res.Error(); err != nil {
		return nil, err
	}
	out := &unstructured.UnstructuredList{}
	if err := res.Into(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Watch starts a watch whose events carry *unstructured.Unstructured.
func (r *Resource) Watch(ctx context.Context, opts metav1.ListOptions) (*rest.WatchStream, error) {
	opts.Watch = true
	return r.request("GET", "", "").Params(&opts).Watch(ctx, func() runtime.Object { return &unstructured.Unstructured{} })
}

// Create creates obj (or posts to a subresource of the object obj names)
// in r's namespace, else obj's.
func (r *Resource) Create(ctx context.Context, obj *unstructured.Unstructured, opts metav1.CreateOptions, subresources ...string) (*unstructured.Unstructured, error) {
	data, err := encode(obj)
	if err != nil {
		return nil, err
	}
	q := r.request("POST", "", obj.GetNamespace())
	if len(subresources) > 0 {
		if obj.GetName() == "" {
			return nil, invalid("create of a subresource needs metadata.name")
		}
		q = q.Name(obj.GetName()).SubResource(subresources...)
	}
	if opts.FieldManager == "" {
		opts.FieldManager = r.c.fieldManager
	}
	return decode(q.Params(&opts).Body(data).Do(ctx))
}

// Update replaces obj (or a subresource of it).
func (r *Resource) Update(ctx context.Context, obj *unstructured.Unstructured, opts metav1.UpdateOptions, subresources ...string) (*unstructured.Unstructured, error) {
	data, err := encode(obj)
	if err != nil {
		return nil, err
	}
	if obj.GetName() == "" {
		return nil, invalid("update needs metadata.name")
	}
	if opts.FieldManager == "" {
		opts.FieldManager = r.c.fieldManager
	}
	return decode(r.request("PUT", "", obj.GetNamespace()).Name(obj.GetName()).SubResource(subresources...).Params(&opts).Body(data).Do(ctx))
}

// UpdateStatus replaces the status of obj.
func (r *Resource) UpdateStatus(ctx context.Context, obj *unstructured.Unstructured, opts metav1.UpdateOptions) (*unstructured.Unstructured, error) {
	return r.Update(ctx, obj, opts, "status")
}

// Delete deletes the object called name, with preconditions, propagation
// policy and grace period from opts.
func (r *Resource) Delete(ctx context.Context, name string, opts metav1.DeleteOptions, subresources ...string) error {
	return r.request("DELETE", "", "").Name(name).SubResource(subresources...).DeleteOptions(opts).Do(ctx).Error()
}

// DeleteCollection deletes the objects of r's namespace matching listOpts.
func (r *Resource) DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error {
	return r.request("DELETE", "", "").Params(&listOpts).DeleteOptions(opts).Do(ctx).Error()
}

// Patch patches the object called name (or its subresource). Strategic
// merge patches work for built-in kinds only; the server refuses them for
// custom resources (415).
func (r *Resource) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*unstructured.Unstructured, error) {
	if opts.FieldManager == "" {
		opts.FieldManager = r.c.fieldManager
		if pt == types.ApplyPatchType {
			opts.FieldManager = r.c.applyManager
		}
	}
	return decode(r.request("PATCH", pt, "").Name(name).SubResource(subresources...).Params(&opts).Body(data).Do(ctx))
}

// ApplyOptions configure a server-side apply.
type ApplyOptions struct {
	// FieldManager owns the applied fields; empty means the Client's.
	FieldManager string
	// Force takes over fields owned by other managers instead of failing
	// with a conflict.
	Force bool
	// DryRun, []string{"All"}, validates without storing.
	DryRun []string
}

// Apply applies obj server-side: obj holds exactly the fields this field
// manager owns. Its name comes from obj; its namespace from r, else obj.
func (r *Resource) Apply(ctx context.Context, obj *unstructured.Unstructured, opts ApplyOptions, subresources ...string) (*unstructured.Unstructured, error) {
	data, err := encode(obj)
	if err != nil {
		return nil, err
	}
	if obj.GetName() == "" {
		return nil, invalid("apply needs metadata.name")
	}
	fm := opts.FieldManager
	if fm == "" {
		fm = r.c.applyManager
	}
	po := metav1.PatchOptions{FieldManager: fm, DryRun: opts.DryRun}
	if opts.Force {
		po.Force = &opts.Force
	}
	return decode(r.request("PATCH", types.ApplyPatchType, obj.GetNamespace()).Name(obj.GetName()).SubResource(subresources...).Params(&po).Body(data).Do(ctx))
}

// ApplyStatus applies obj to the status subresource.
func (r *Resource) ApplyStatus(ctx context.Context, obj *unstructured.Unstructured, opts ApplyOptions) (*unstructured.Unstructured, error) {
	return r.Apply(ctx, obj, opts, "status")
}
