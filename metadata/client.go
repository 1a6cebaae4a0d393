package metadata

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/rest"
)

const (
	// Accept asks the server for PartialObjectMetadata, in protobuf when it
	// can, else in JSON. Get, Patch, Delete and Watch send it.
	Accept = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1," +
		"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
	// AcceptList asks the server for a PartialObjectMetadataList, in
	// protobuf when it can, else in JSON. List and DeleteCollection send it.
	AcceptList = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1," +
		"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
)

// Options configure a Client. The zero value is ready to use.
type Options struct{}

// Client reads and writes only the metadata of objects of any resource,
// as *metav1.PartialObjectMetadata. It is safe for concurrent use.
type Client struct {
	rest *rest.Client
}

// New returns a metadata Client over rc.
func New(rc *rest.Client, opts Options) *Client {
	return &Client{rest: rc}
}

// NewForConfig builds a rest client from cfg and a metadata Client over it.
func NewForConfig(cfg *rest.Config, opts Options) (*Client, error) {
	rc, err := rest.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return New(rc, opts), nil
}

// Resource returns the client of resource gvr, cluster-wide.
func (c *Client) Resource(gvr schema.GroupVersionResource) *Resource {
	return &Resource{c: c, gvr: gvr}
}

// Resource is the metadata client of one resource in one namespace (or
// cluster-wide). It is an immutable value, safe for concurrent use.
// Returned objects belong to the caller. Server refusals are
// *apierrors.StatusError; a server that cannot produce metadata answers
// 406 (apierrors.IsNotAcceptable).
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

func (r *Resource) request(verb string, pt types.PatchType) *rest.Request {
	var q *rest.Request
	if pt != "" {
		q = r.c.rest.Patch(pt)
	} else {
		q = r.c.rest.Verb(verb)
	}
	q = q.Group(r.gvr.Group).Version(r.gvr.Version).Resource(r.gvr.Resource).ContentType(rest.ContentTypeJSON).Accept(Accept)
	if r.ns != "" {
		q = q.Namespace(r.ns)
	}
	return q
}

func decode(res rest.Result) (*metav1.PartialObjectMetadata, error) {
	if err := res.Error(); err != nil {
		return nil, err
	}
	out := &metav1.PartialObjectMetadata{}
	if err := res.Into(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Get returns the metadata of the object called name.
func (r *Resource) Get(ctx context.Context, name string, opts metav1.GetOptions) (*metav1.PartialObjectMetadata, error) {
	return decode(r.request("GET", "").Name(name).Params(&opts).Do(ctx))
}

// List returns the metadata of one page of objects.
func (r *Resource) List(ctx context.Context, opts metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
	res := r.request("GET", "").Accept(AcceptList).Params(&opts).Do(ctx)
	if err := res.Error(); err != nil {
		return nil, err
	}
	out := &metav1.PartialObjectMetadataList{}
	if err := res.Into(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Watch starts a watch whose events carry *metav1.PartialObjectMetadata.
func (r *Resource) Watch(ctx context.Context, opts metav1.ListOptions) (*rest.WatchStream, error) {
	opts.Watch = true
	return r.request("GET", "").Params(&opts).Watch(ctx, func() runtime.Object { return &metav1.PartialObjectMetadata{} })
}

// Patch patches the object called name (typically its labels,
// annotations, finalizers or owner references) and returns its metadata.
func (r *Resource) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*metav1.PartialObjectMetadata, error) {
	return decode(r.request("PATCH", pt).Name(name).SubResource(subresources...).Params(&opts).Body(data).Do(ctx))
}

// Delete deletes the object called name.
func (r *Resource) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return r.request("DELETE", "").Name(name).DeleteOptions(opts).Do(ctx).Error()
}

// DeleteCollection deletes the objects of r's namespace matching listOpts.
func (r *Resource) DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error {
	// The server answers a collection delete with the deleted list.
	return r.request("DELETE", "").Accept(AcceptList).Params(&listOpts).DeleteOptions(opts).Do(ctx).Error()
}
