package informer

import (
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Declaration fixes the options of one type's informer in a [Factory]:
// made by [Declare], [DeclareResource] or [DeclareMetadata] and given to
// [Factory.Declare] (a manager.Manager and a fleet.Cluster take them in
// their Options). The zero value declares nothing.
type Declaration struct {
	id   identity
	opts SharedOptions
	name string
}

// String names the declared informer.
func (d Declaration) String() string { return d.name }

// Declare declares the informer of Go type T (a type the factory's
// Backend knows) with opts: every request for T that gives no options of
// its own — a controller's source, a [Reader] — gets this informer.
func Declare[T Object](opts SharedOptions) Declaration {
	typ := reflect.TypeFor[T]()
	return Declaration{id: identity{typ, Typed, schema.GroupVersionResource{}}, opts: opts, name: typ.String()}
}

// DeclareResource declares the unstructured informer of gvr with opts.
func DeclareResource(gvr schema.GroupVersionResource, opts SharedOptions) Declaration {
	typ := reflect.TypeFor[*unstructured.Unstructured]()
	return Declaration{id: identity{typ, Unstructured, gvr}, opts: opts, name: targetOf(typ, Unstructured, gvr, "").String()}
}

// DeclareMetadata declares the metadata-only informer of gvr with opts.
func DeclareMetadata(gvr schema.GroupVersionResource, opts SharedOptions) Declaration {
	typ := reflect.TypeFor[*metav1.PartialObjectMetadata]()
	return Declaration{id: identity{typ, Metadata, gvr}, opts: opts, name: targetOf(typ, Metadata, gvr, "").String()}
}

// Declare records the declarations: from now on a request for a declared
// type without options of its own gets the declared options. On a factory
// with FactoryOptions.OneInformerPerType the declared options are the
// type's for the factory's lifetime: a request with other options is
// refused with an *[OptionsConflictError].
//
// Declare each type once, before anything asks for it: a second
// declaration of a type, or one of a type already asked for with other
// options, returns an error wrapping [ErrDeclared] (and, for the latter,
// the *[OptionsConflictError]), and nothing of that call is recorded.
func (f *Factory) Declare(ds ...Declaration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	seen := map[identity]bool{}
	for _, d := range ds {
		if d.id.typ == nil {
			continue
		}
		if _, ok := f.declared[d.id]; ok || seen[d.id] {
			return fmt.Errorf("%w: %s", ErrDeclared, d)
		}
		seen[d.id] = true
		if f.opts.OneInformerPerType {
			if c, ok := f.claims[d.claimID()]; ok && c.differs(d.opts) != "" {
				return fmt.Errorf("%w: %s was asked for before its declaration: %w", ErrDeclared, d, f.conflict(c, d.claimID(), d.opts))
			}
		}
	}
	if f.declared == nil {
		f.declared = map[identity]SharedOptions{}
	}
	for _, d := range ds {
		if d.id.typ == nil {
			continue
		}
		f.declared[d.id] = d.opts
		f.noteLocked(targetOf(d.id.typ, d.id.form, f.resourceOf(d.id, d.opts), d.opts.Namespace))
		if f.opts.OneInformerPerType {
			// Cannot fail: checked above.
			_ = f.claimLocked(d.claimID(), targetOf(d.id.typ, d.id.form, f.resourceOf(d.id, d.opts), d.opts.Namespace), d.opts)
		}
	}
	return nil
}

// claimID is the identity the factory's claims know d's informer by: a
// typed informer's includes the resource its options name.
func (d Declaration) claimID() identity {
	id := d.id
	if id.form == Typed {
		id.gvr = d.opts.Resource
	}
	return id
}

// resourceOf returns the resource of an informer of id with opts: a typed
// informer's comes from its options (empty: the Backend derives it).
func (f *Factory) resourceOf(id identity, opts SharedOptions) schema.GroupVersionResource {
	if id.form == Typed {
		return opts.Resource
	}
	return id.gvr
}

// withDeclared returns the declared options of id when opts gives none,
// else opts. It runs with f.mu held.
func (f *Factory) withDeclared(id identity, opts SharedOptions) SharedOptions {
	if !opts.isZero() {
		return opts
	}
	if d, ok := f.declared[id]; ok {
		return d
	}
	return opts
}

// isZero reports whether o gives no option at all.
func (o SharedOptions) isZero() bool {
	return o.Namespace == "" && o.LabelSelector == "" && o.FieldSelector == "" && o.Resource.Empty() &&
		o.Transform == nil && o.TransformName == "" && !o.KeepManagedFields && !o.DisableSharing && !o.Decoded && !o.DisableCompression && len(o.Indexers) == 0
}

// claimDeclared claims, on a factory with OneInformerPerType, the
// informer a request without options of the type of typ, form and gvr
// gets: its declared options, or none.
func (f *Factory) claimDeclared(typ reflect.Type, form Form, gvr schema.GroupVersionResource) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var opts SharedOptions
	if form == Typed {
		opts = f.withDeclared(identity{typ, Typed, schema.GroupVersionResource{}}, opts)
		gvr = opts.Resource
	} else {
		opts = f.withDeclared(identity{typ, form, gvr}, opts)
	}
	target := targetOf(typ, form, gvr, opts.Namespace)
	f.noteLocked(target)
	return f.claimLocked(identity{typ, form, gvr}, target, opts)
}
