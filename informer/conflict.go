package informer

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// OptionsConflictError is the refusal of a request for an informer, on a
// factory with FactoryOptions.OneInformerPerType, whose options differ
// from those the type was first asked with: it would have been a second
// watch and a second cache of the same objects. It names both option sets
// and the first field that differs.
type OptionsConflictError struct {
	// Informer names the informer's target, e.g. "*v1.Deployment".
	Informer string
	// First are the options the type was first asked with; Second are the
	// refused ones.
	First, Second SharedOptions
	// Field is the first difference: "Namespace", "LabelSelector",
	// "FieldSelector", "Transform", "KeepManagedFields", "DisableSharing",
	// "Decoded", "DisableCompression"
	// or `Indexers["name"]` (an index of that name with another function).
	Field string
}

func (e *OptionsConflictError) Error() string {
	return fmt.Sprintf("conflicting informer options for %s (%s differs): first asked with %s, now with %s; a type's informer options are given once per factory",
		e.Informer, e.Field, describeOptions(e.First), describeOptions(e.Second))
}

// Unwrap returns [ErrOptionsConflict].
func (e *OptionsConflictError) Unwrap() error { return ErrOptionsConflict }

// describeOptions writes the options that select and shape an informer.
func describeOptions(o SharedOptions) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{namespace %q, labels %q, fields %q", o.Namespace, o.LabelSelector, o.FieldSelector)
	switch {
	case o.TransformName != "":
		fmt.Fprintf(&b, ", transform %q", o.TransformName)
	case o.Transform != nil:
		fmt.Fprintf(&b, ", transform %s", funcName(o.Transform))
	}
	if o.KeepManagedFields {
		b.WriteString(", managedFields kept")
	}
	if o.DisableSharing {
		b.WriteString(", sharing disabled")
	}
	if o.Decoded {
		b.WriteString(", decoded")
	}
	if o.DisableCompression {
		b.WriteString(", compression disabled")
	}
	if len(o.Indexers) > 0 {
		names := make([]string, 0, len(o.Indexers))
		for n := range o.Indexers {
			names = append(names, n)
		}
		slices.Sort(names)
		fmt.Fprintf(&b, ", indexers %s", strings.Join(names, ","))
	}
	b.WriteString("}")
	return b.String()
}

// funcName names a function by its code, for messages.
func funcName(fn any) string {
	v := reflect.ValueOf(fn)
	if !v.IsValid() || v.IsNil() {
		return "<nil>"
	}
	return fmt.Sprintf("func@%#x", v.Pointer())
}

// funcCode identifies a function by its code. Two closures made by one
// function literal have the same code, whatever they captured: the
// comparison errs towards sharing, never towards a false conflict.
func funcCode(fn any) uintptr {
	v := reflect.ValueOf(fn)
	if !v.IsValid() || v.IsNil() {
		return 0
	}
	return v.Pointer()
}

// identity is what one claim covers: a Go type in one form (and, for
// unstructured and metadata informers or a typed one with a Resource, one
// resource).
type identity struct {
	typ  reflect.Type
	form Form
	gvr  schema.GroupVersionResource
}

// claim is the options a type was first asked with, with the code of its
// transform and of each indexer registered since.
type claim struct {
	opts      SharedOptions
	transform uintptr
	indexers  map[string]uintptr
}

// claimLocked checks opts against the claim of id, recording it (and any
// new indexer names) when they agree. It runs with f.mu held.
func (f *Factory) claimLocked(id identity, target Target, opts SharedOptions) error {
	c, ok := f.claims[id]
	if !ok {
		c = &claim{opts: opts, transform: funcCode(opts.Transform), indexers: map[string]uintptr{}}
		for name, fn := range opts.Indexers {
			if fn != nil {
				c.indexers[name] = funcCode(fn)
			}
		}
		c.opts.Indexers = nil // the names live in c.indexers
		if f.claims == nil {
			f.claims = map[identity]*claim{}
		}
		f.claims[id] = c
		return nil
	}
	if field := c.differs(opts); field != "" {
		return c.conflictError(target, opts, field)
	}
	for name, fn := range opts.Indexers {
		if _, ok := c.indexers[name]; !ok && fn != nil {
			c.indexers[name] = funcCode(fn)
		}
	}
	return nil
}

// conflict returns the *OptionsConflictError of a request of id with
// opts that the claim c refuses.
func (f *Factory) conflict(c *claim, id identity, opts SharedOptions) error {
	return c.conflictError(targetOf(id.typ, id.form, f.resourceOf(id, opts), opts.Namespace), opts, c.differs(opts))
}

func (c *claim) conflictError(target Target, opts SharedOptions, field string) *OptionsConflictError {
	first := c.opts
	first.Indexers = make(map[string]func(Object) []string, len(c.indexers))
	for name := range c.indexers {
		first.Indexers[name] = nil
	}
	return &OptionsConflictError{Informer: target.String(), First: first, Second: opts, Field: field}
}

// differs returns the first field in which opts differs from the claim,
// or "".
func (c *claim) differs(opts SharedOptions) string {
	o := c.opts
	switch {
	case opts.Namespace != o.Namespace:
		return "Namespace"
	case opts.LabelSelector != o.LabelSelector:
		return "LabelSelector"
	case opts.FieldSelector != o.FieldSelector:
		return "FieldSelector"
	case opts.TransformName != o.TransformName,
		opts.TransformName == "" && funcCode(opts.Transform) != c.transform:
		return "Transform"
	case opts.KeepManagedFields != o.KeepManagedFields:
		return "KeepManagedFields"
	case opts.DisableSharing != o.DisableSharing:
		return "DisableSharing"
	case opts.Decoded != o.Decoded:
		return "Decoded"
	case opts.DisableCompression != o.DisableCompression:
		return "DisableCompression"
	}
	names := make([]string, 0, len(opts.Indexers))
	for name := range opts.Indexers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if code, ok := c.indexers[name]; ok && opts.Indexers[name] != nil && code != funcCode(opts.Indexers[name]) {
			return fmt.Sprintf("Indexers[%q]", name)
		}
	}
	return ""
}
