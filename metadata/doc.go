// Package metadata reads and writes only the metadata of objects, as
// *metav1.PartialObjectMetadata, for any resource. The server strips
// everything else before sending (the as=PartialObjectMetadata media type
// parameter of [Accept] and [AcceptList]), so a controller that needs
// labels, owners or finalizers of many large objects moves and caches a
// fraction of the bytes. Answers come in protobuf, which is several times
// cheaper to decode, when the server offers it, and in JSON otherwise;
// either way the objects carry apiVersion meta.k8s.io/v1 and their kind.
//
//	mc := metadata.New(rc, metadata.Options{})
//	secrets := mc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"})
//	list, err := secrets.Namespace("default").List(ctx, metav1.ListOptions{})
//	for _, s := range list.Items {
//		fmt.Println(s.Name, s.Labels) // no secret data was transferred
//	}
//
// It has Get, List, Watch, Patch, Delete and DeleteCollection. Resource
// values are immutable and safe for concurrent use; returned objects
// belong to the caller. For an informer of metadata, ask an
// informer.Factory built on a client.Client for the resource; it shares one
// watch per resource and options.
package metadata
