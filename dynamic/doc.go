// Package dynamic reaches any resource, built-in or custom, by its
// group/version/resource, with objects as *unstructured.Unstructured and
// JSON on the wire. It needs no Go types, so it serves tools and
// controllers that handle resources chosen at run time.
//
//	dc := dynamic.New(rc, dynamic.Options{})
//	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
//	d, err := dc.Resource(gvr).Namespace("default").Get(ctx, "web", metav1.GetOptions{})
//	replicas, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
//
// The verbs are those of client.Resource: Get, List, Watch, Create, Update,
// UpdateStatus, Patch, Apply, ApplyStatus, Delete, DeleteCollection, with
// optional subresource names, and All to iterate over every page of a
// list. Resource values are immutable and safe for
// concurrent use; objects passed in are not modified and objects returned
// belong to the caller. The client knows nothing of scope: a namespaced
// resource without a namespace lists across all namespaces, and the server
// refuses what does not fit. Use discovery.RESTMapper to turn kinds into
// resources. For an informer of unstructured objects, ask an
// informer.Factory built on a client.Client for the resource; it shares one
// watch per resource and options.
package dynamic
