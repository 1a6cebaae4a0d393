package client

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubego/kubego/informer"
	"github.com/kubego/kubego/internal/codec"
	"github.com/kubego/kubego/rest"
)

// core is the untyped engine behind Resource[T] and the informer Backend: it
// builds requests and decodes answers for one Go type and namespace. It is
// immutable.
type core struct {
	c        *Client
	ti       *typeInfo
	explicit *Mapping // set by TypedMapping; wins over ti
	ns       string
	discard  bool // writes return no object (Resource.DiscardResults)
}

func (k core) newObject() runtime.Object {
	switch k.ti.form {
	case formUnstructured:
		return &unstructured.Unstructured{}
	case formMetadata:
		return &metav1.PartialObjectMetadata{}
	}
	return reflect.New(k.ti.typ.Elem()).Interface().(runtime.Object)
}

func (k core) mapping(ctx context.Context) (Mapping, error) {
	if k.explicit != nil {
		return *k.explicit, nil
	}
	return k.c.resolve(ctx, k.ti)
}

// request starts a request on the resource in namespace ns ("" for the
// client's namespace). allNamespaces permits a namespaced resource without a
// namespace (list, watch, deletecollection across namespaces is not allowed
// by the server, but list and watch are).
func (k core) request(ctx context.Context, verb string, pt types.PatchType, ns string, allNamespaces bool) (*rest.Request, Mapping, error) {
	m, err := k.mapping(ctx)
	if err != nil {
		return nil, m, err
	}
	if ns == "" {
		ns = k.ns
	}
	switch {
	case !m.Namespaced && ns != "":
		return nil, m, &ScopeError{Resource: m.Resource, Namespaced: false, Namespace: ns}
	case m.Namespaced && ns == "" && !allNamespaces:
		return nil, m, &ScopeError{Resource: m.Resource, Namespaced: true}
	}
	var r *rest.Request
	if pt != "" {
		r = k.c.rest.Patch(pt)
	} else {
		r = k.c.rest.Verb(verb)
	}
	r = r.Group(m.Resource.Group).Version(m.Resource.Version).Resource(m.Resource.Resource)
	if ns != "" {
		r = r.Namespace(ns)
	}
	switch {
	case k.ti.form != formScheme:
		r = r.ContentType(rest.ContentTypeJSON)
	case k.ti.zero != nil:
		r = r.Typed(k.ti.zero) // Typed only looks at the type
	default:
		r = r.Typed(k.newObject())
	}
	if k.ti.form == formMetadata {
		r = r.Accept(AcceptMetadata)
	}
	return r, m, nil
}

// decode reads one object of the client's type from res.
func (k core) decode(res rest.Result) (runtime.Object, error) {
	if err := res.Error(); err != nil {
		return nil, err
	}
	out := k.newObject()
	if err := res.Into(out); err != nil {
		return nil, err
	}
	return out, nil
}

// body encodes obj for a create or update of resource m. Objects the scheme
// knows are handed to the rest client; others are marshalled to JSON here,
// on a copy carrying apiVersion and kind.
func (k core) body(obj runtime.Object, m Mapping) (any, error) {
	if k.ti.form == formScheme {
		return obj, nil
	}
	if obj.GetObjectKind().GroupVersionKind().Kind == "" {
		obj = obj.DeepCopyObject()
		obj.GetObjectKind().SetGroupVersionKind(m.Kind)
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, invalid("encoding %T as JSON: %v", obj, err)
	}
	return data, nil
}

func (k core) get(ctx context.Context, name string, opts *metav1.GetOptions, sub ...string) (runtime.Object, error) {
	r, _, err := k.request(ctx, "GET", "", "", false)
	if err != nil {
		return nil, err
	}
	return k.decode(r.Name(name).SubResource(sub...).Params(opts).Do(ctx))
}

// list performs one LIST and calls yield for each item in order. Items
// point into one decoded list; they must not be shared for writing.
func (k core) list(ctx context.Context, opts *metav1.ListOptions, yield func(runtime.Object)) (metav1.ListMeta, error) {
	r, m, err := k.request(ctx, "GET", "", "", true)
	if err != nil {
		return metav1.ListMeta{}, err
	}
	r = r.Params(opts)
	form := k.ti.form
	listGVK := k.ti.listGVK
	if k.explicit != nil && form == formScheme {
		listGVK = listKind(m.Kind)
	}
	if form == formScheme && !k.c.rest.Scheme().Recognizes(listGVK) {
		if _, proto := k.newObject().(protoItem); !proto {
			r = r.ContentType(rest.ContentTypeJSON)
		}
		// A built-in kind the program uses without the scheme: its list
		// Go type is not linked, the items are read one by one, into the
		// item type, which must be of the list's kind.
		item := listGVK.GroupVersion().WithKind(strings.TrimSuffix(listGVK.Kind, "List"))
		if !slices.Contains(k.c.rest.KindsOf(k.newObject()), item) {
			return metav1.ListMeta{}, fmt.Errorf("client: %w: the items of %v do not decode into %v, and the rest client's scheme does not register %v", informer.ErrUnexpectedType, listGVK, k.ti.typ, listGVK)
		}
		lst := &itemList{}
		if err := r.Do(ctx).Into(lst); err != nil {
			return metav1.ListMeta{}, err
		}
		return lst.each(listGVK, k.newObject, yield)
	}
	switch form {
	case formScheme:
		lst, err := k.c.rest.Scheme().New(listGVK)
		if err != nil {
			return metav1.ListMeta{}, fmt.Errorf("client: list type of %v: %w", k.ti.typ, err)
		}
		if err := r.Do(ctx).Into(lst); err != nil {
			return metav1.ListMeta{}, err
		}
		return itemsOf(lst, yield)
	case formUnstructured:
		var lst unstructured.UnstructuredList
		if err := r.Do(ctx).Into(&lst); err != nil {
			return metav1.ListMeta{}, err
		}
		for i := range lst.Items {
			yield(&lst.Items[i])
		}
		return metav1.ListMeta{ResourceVersion: lst.GetResourceVersion(), Continue: lst.GetContinue(), RemainingItemCount: lst.GetRemainingItemCount()}, nil
	case formMetadata:
		var lst metav1.PartialObjectMetadataList
		if err := r.Accept(AcceptMetadataList).Do(ctx).Into(&lst); err != nil {
			return metav1.ListMeta{}, err
		}
		for i := range lst.Items {
			yield(&lst.Items[i])
		}
		return lst.ListMeta, nil
	}
	data, err := r.DoRaw(ctx)
	if err != nil {
		return metav1.ListMeta{}, err
	}
	return decodeJSONList(data, k.newObject, yield)
}

// decodeJSONList decodes a JSON list of objects of a Go type the scheme
// does not know. It calls yield only for items that decoded, and fails as
// a whole (*rest.DecodeError) on the first bad item, before yielding it.
func decodeJSONList(data []byte, newObject func() runtime.Object, yield func(runtime.Object)) (metav1.ListMeta, error) {
	var lst struct {
		Metadata metav1.ListMeta   `json:"metadata"`
		Items    []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &lst); err != nil {
		return metav1.ListMeta{}, &rest.DecodeError{ContentType: "application/json", Err: err}
	}
	objs := make([]runtime.Object, 0, len(lst.Items))
	for _, raw := range lst.Items {
		o := newObject()
		if err := json.Unmarshal(raw, o); err != nil {
			return metav1.ListMeta{}, &rest.DecodeError{ContentType: "application/json", Err: err}
		}
		objs = append(objs, o)
	}
	for _, o := range objs {
		yield(o)
	}
	return lst.Metadata, nil
}

// itemsOf walks the Items of a typed list.
func itemsOf(lst runtime.Object, yield func(runtime.Object)) (metav1.ListMeta, error) {
	lm, err := meta.ListAccessor(lst)
	if err != nil {
		return metav1.ListMeta{}, fmt.Errorf("client: %T is not a list: %w", lst, err)
	}
	out := metav1.ListMeta{ResourceVersion: lm.GetResourceVersion(), Continue: lm.GetContinue(), RemainingItemCount: lm.GetRemainingItemCount()}
	v := reflect.ValueOf(lst).Elem().FieldByName("Items")
	if !v.IsValid() || v.Kind() != reflect.Slice {
		return out, fmt.Errorf("client: %T has no Items slice", lst)
	}
	for i := range v.Len() {
		item := v.Index(i)
		if item.Kind() != reflect.Pointer {
			item = item.Addr()
		}
		o, ok := item.Interface().(runtime.Object)
		if !ok {
			return out, fmt.Errorf("client: items of %T are not objects", lst)
		}
		yield(o)
	}
	return out, nil
}

func (k core) watch(ctx context.Context, opts *metav1.ListOptions) (*rest.WatchStream, error) {
	return k.watchHinted(ctx, opts, codec.Hints{})
}

// watchHinted is watch following an informer's hints.
func (k core) watchHinted(ctx context.Context, opts *metav1.ListOptions, hints codec.Hints) (*rest.WatchStream, error) {
	r, _, err := k.request(ctx, "GET", "", "", true)
	if err != nil {
		return nil, err
	}
	o := *opts
	o.Watch = true
	return r.Params(&o).Hints(hints).Watch(ctx, k.newObject)
}

// write creates (POST) or updates (PUT) obj, or one of its subresources.
func (k core) write(ctx context.Context, verb string, obj runtime.Object, opts runtime.Object, sub ...string) (runtime.Object, error) {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return nil, invalid("%T has no object metadata: %v", obj, err)
	}
	ns := k.ns
	if ns == "" {
		ns = acc.GetNamespace()
	}
	r, m, err := k.request(ctx, verb, "", ns, false)
	if err != nil {
		return nil, err
	}
	if verb != "POST" || len(sub) > 0 {
		if acc.GetName() == "" {
			return nil, invalid("%s of %s needs metadata.name", verb, m.Resource.Resource)
		}
		r = r.Name(acc.GetName())
	}
	body, err := k.body(obj, m)
	if err != nil {
		return nil, err
	}
	return k.written(r.SubResource(sub...).Params(opts).Body(body).Do(ctx))
}

// written is the outcome of a write: the decoded answer, or with discard
// only the error (the body has been read whole either way, so the
// connection is reused).
func (k core) written(res rest.Result) (runtime.Object, error) {
	if k.discard {
		return nil, res.Error()
	}
	return k.decode(res)
}

func (k core) delete(ctx context.Context, name string, opts *metav1.DeleteOptions) error {
	r, _, err := k.request(ctx, "DELETE", "", "", false)
	if err != nil {
		return err
	}
	return r.Name(name).DeleteOptions(*opts).Do(ctx).Error()
}

func (k core) deleteCollection(ctx context.Context, opts *metav1.DeleteOptions, listOpts *metav1.ListOptions) error {
	r, _, err := k.request(ctx, "DELETE", "", "", false)
	if err != nil {
		return err
	}
	if k.ti.form == formMetadata {
		// The server answers a collection delete with the deleted list.
		r = r.Accept(AcceptMetadataList)
	}
	return r.Params(listOpts).DeleteOptions(*opts).Do(ctx).Error()
}

func (k core) patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts *metav1.PatchOptions, sub ...string) (runtime.Object, error) {
	r, m, err := k.request(ctx, "PATCH", pt, "", false)
	if err != nil {
		return nil, err
	}
	if pt == types.StrategicMergePatchType && !k.strategicOK() {
		return nil, &PatchTypeError{Resource: m.Resource, PatchType: pt}
	}
	return k.written(r.Name(name).SubResource(sub...).Params(opts).Body(data).Do(ctx))
}

// strategicOK reports whether the resource takes strategic merge patches:
// only built-in kinds do.
func (k core) strategicOK() bool {
	if k.explicit != nil {
		_, ok := Builtin(k.explicit.Kind)
		return ok
	}
	return k.ti.builtin
}
