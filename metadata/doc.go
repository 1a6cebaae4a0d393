// Package metadata reads and writes only the metadata of objects, as
// *metav1.PartialObjectMetadata, for any resource. The server strips
// everything else before sending (Accept
// "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"), so a
// controller that needs labels, owners or finalizers of many large objects
// moves and caches a fraction of the bytes.
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
// belong to the caller. ListerWatcher adapts a Resource to package
// informer.
package metadata
