package objects

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/informer"
)

// OwnerIndexOptions configure OwnerIndex. The zero value indexes every
// owner reference of the kind, to an owner in the object's namespace.
type OwnerIndexOptions struct {
	// ControllerOnly indexes only the reference marked controller: the
	// one owner that manages the object.
	ControllerOnly bool
	// ClusterScoped says the owner kind is cluster-scoped: values are
	// then the owner's name alone, whatever the object's namespace.
	ClusterScoped bool
}

// OwnerIndex returns an index function (for informer.SharedOptions.Indexers)
// that maps each object to the keys of its owners of kind owner (any
// version of its group), in informer.Key string form: "namespace/name" of
// an owner in the object's own namespace, "name" of a cluster-scoped one.
// Index values are global in a cache, and the namespace in each value is
// what keeps two owners of one name in different namespaces apart — the
// mistake a hand-written owner index makes silently.
//
// Look the owned objects up with the owner's key:
//
//	mgr.Declare(informer.Declare[*batchv1.Job](informer.SharedOptions{
//		Indexers: map[string]func(informer.Object) []string{
//			"owner": objects.OwnerIndex(schema.GroupKind{Group: "batch.example.com", Kind: "CronJob"}, objects.OwnerIndexOptions{ControllerOnly: true}),
//		},
//	}))
//	...
//	jobs, err := jobReader.ByIndex(ctx, "owner", informer.KeyOf(cronJob).String())
func OwnerIndex(owner schema.GroupKind, opts OwnerIndexOptions) func(informer.Object) []string {
	return func(obj informer.Object) []string {
		var out []string
		for _, ref := range obj.GetOwnerReferences() {
			if ref.Kind != owner.Kind || (opts.ControllerOnly && (ref.Controller == nil || !*ref.Controller)) {
				continue
			}
			gv, err := schema.ParseGroupVersion(ref.APIVersion)
			if err != nil || gv.Group != owner.Group {
				continue
			}
			k := informer.Key{Namespace: obj.GetNamespace(), Name: ref.Name}
			if opts.ClusterScoped {
				k.Namespace = ""
			}
			out = append(out, k.String())
		}
		return out
	}
}
