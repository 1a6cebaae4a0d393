// Package objects holds the helpers a controller needs around its writes:
// owner references (SetControllerReference, SetOwnerReference),
// finalizers (AddFinalizer, RemoveFinalizer, HasFinalizer), get-mutate-write
// in one call (CreateOrUpdate, CreateOrPatch), and JSON merge patches
// computed from an old and a new object (MergePatch, Patch, PatchStatus).
//
// # Writing status without conflicts
//
// An Update or UpdateStatus built from a copy of a cached object carries
// the cached resourceVersion; when the cache has not yet seen the
// controller's previous write, the server refuses it with 409 Conflict and
// the reconcile is retried. A merge patch names only the fields that
// changed and no resourceVersion, so it applies to the current object:
//
//	cached, _ := foos.GetKey(req.Key)            // from the informer; never modify it
//	foo := cached.DeepCopyObject().(*Foo)
//	foo.Status.AvailableReplicas = dep.Status.AvailableReplicas
//	meta.SetStatusCondition(&foo.Status.Conditions, metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Synced"})
//	_, err := objects.PatchStatus(ctx, client.Typed[*Foo](c), cached, foo, objects.PatchOptions{})
//
// Status conditions are apimachinery's: meta.SetStatusCondition,
// meta.FindStatusCondition and meta.IsStatusConditionTrue from
// k8s.io/apimachinery/pkg/api/meta. PatchOptions.OptimisticLock adds the
// old resourceVersion back when a write must not be based on stale data.
// Lists are replaced whole by a merge patch (RFC 7386), so a patch of
// conditions carries the whole new list.
//
// # Kinds
//
// Owner references need the owner's apiVersion and kind, which typed
// objects read from a cache or a client usually do not carry. The helpers
// ask a KindResolver: a *client.Client, which knows the kinds of its
// Registry, of the built-in table and of its scheme.
package objects
