package client

import (
	"context"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// ApplyOptions configure a server-side apply.
type ApplyOptions struct {
	// FieldManager owns the fields the apply sets. Empty means the Client's
	// Options.FieldManager, else the name the server would give a write
	// from the client's User-Agent (the program's name by default).
	FieldManager string
	// Force takes ownership of fields another manager owns instead of
	// failing with a conflict (apierrors.IsConflict).
	Force bool
	// DryRun, when set to []string{"All"}, has the server validate without
	// storing.
	DryRun []string
}

// Apply sends config as a server-side apply patch and returns the object
// the server stored. config is the desired state of exactly the fields this
// field manager owns, and may be:
//
//   - map[string]any or *unstructured.Unstructured (recommended: only the
//     fields you set are sent);
//   - an *apply.Configuration[T] (any ApplyObjecter): exactly the fields
//     it holds, zero values included (see ApplyFunc);
//   - []byte or json.RawMessage holding a JSON object;
//   - any other value marshalled with encoding/json: an apply-shaped struct
//     (pointer fields with omitempty), or a full typed object such as T.
//
// apiVersion and kind are filled in from the resource when missing;
// metadata.name is required; the namespace is r's, else config's.
//
// A full typed object carries the zero-value pitfall: Go cannot tell an
// unset field from one set to its zero value, so every non-omitempty field
// is sent and becomes owned by this manager (for example
// "creationTimestamp": null, "status": {}, "resources": {}, or a plain int
// 0), claiming fields you never meant to manage and resetting them.
// Apply removes nulls and empty objects from encoded values (see
// ApplyMap), which covers the common cases, but plain zero scalars
// without omitempty still go out: prefer a map or *unstructured.Unstructured.
func (r *Resource[T]) Apply(ctx context.Context, config any, opts ApplyOptions) (T, error) {
	return r.apply(ctx, config, opts)
}

// ApplyStatus is Apply on the status subresource.
func (r *Resource[T]) ApplyStatus(ctx context.Context, config any, opts ApplyOptions) (T, error) {
	return r.apply(ctx, config, opts, "status")
}

func (r *Resource[T]) apply(ctx context.Context, config any, opts ApplyOptions, sub ...string) (T, error) {
	var zero T
	m, err := r.k.mapping(ctx)
	if err != nil {
		return zero, err
	}
	obj, err := ApplyMap(config)
	if err != nil {
		return zero, err
	}
	u := unstructured.Unstructured{Object: obj}
	if u.GetAPIVersion() == "" {
		u.SetAPIVersion(m.Kind.GroupVersion().String())
	}
	if u.GetKind() == "" {
		u.SetKind(m.Kind.Kind)
	}
	name := u.GetName()
	if name == "" {
		return zero, invalid("apply of %s needs metadata.name", m.Resource.Resource)
	}
	k := r.k
	if k.ns == "" && m.Namespaced {
		k.ns = u.GetNamespace()
	}
	data, err := json.Marshal(u.Object)
	if err != nil {
		return zero, invalid("encoding apply configuration: %v", err)
	}
	fm := opts.FieldManager
	if fm == "" {
		fm = r.k.c.applyManager
	}
	po := metav1.PatchOptions{FieldManager: fm, DryRun: opts.DryRun}
	if opts.Force {
		po.Force = &opts.Force
	}
	return cast[T](k.patch(ctx, name, types.ApplyPatchType, data, &po, sub...))
}

// ApplyMap turns an apply configuration into the JSON object Apply sends.
// Maps and *unstructured.Unstructured are copied as they are (through
// JSON, so the caller's value is never modified); an ApplyObjecter gives
// its object (a copy of its own) as it is; other values
// are encoded with encoding/json and then stripped of null values and of
// objects left empty, so that unset pointers, empty structs and
// "creationTimestamp": null do not claim ownership of fields.
func ApplyMap(config any) (map[string]any, error) {
	switch c := config.(type) {
	case nil:
		return nil, invalid("nil apply configuration")
	case map[string]any:
		return copyJSON(c)
	case *unstructured.Unstructured:
		if c == nil {
			return nil, invalid("nil apply configuration")
		}
		return copyJSON(c.Object)
	case []byte:
		return decodeObject(c)
	case json.RawMessage:
		return decodeObject(c)
	case ApplyObjecter:
		obj := c.ApplyObject()
		if obj == nil {
			return nil, invalid("nil apply configuration")
		}
		return obj, nil
	}
	data, err := json.Marshal(config)
	if err != nil {
		return nil, invalid("encoding apply configuration %T: %v", config, err)
	}
	m, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	prune(m)
	return m, nil
}

func decodeObject(data []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, invalid("apply configuration is not a JSON object: %v", err)
	}
	if m == nil {
		return nil, invalid("apply configuration is null")
	}
	return m, nil
}

// copyJSON copies m through its JSON encoding, which also checks that it
// can be encoded.
func copyJSON(m map[string]any) (map[string]any, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, invalid("encoding apply configuration: %v", err)
	}
	return decodeObject(data)
}

// prune removes null values and objects that are empty after pruning.
// Arrays are kept as they are, except that their object elements are
// pruned too.
func prune(m map[string]any) {
	for k, v := range m {
		switch x := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			prune(x)
			if len(x) == 0 {
				delete(m, k)
			}
		case []any:
			for _, e := range x {
				if em, ok := e.(map[string]any); ok {
					prune(em)
				}
			}
		}
	}
}
