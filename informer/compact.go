package informer

import (
	"fmt"
	"reflect"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/internal/codec/protodec"
	"github.com/kubego/kubego/internal/codec/wire"
)

// A compact store keeps each object as its protobuf encoding (a packed
// entry) and decodes it on every read, so every reader gets an object of
// its own. What a read must answer without decoding is computed when the
// object is stored (the values of declared indexes) or read in place from
// the bytes (namespace, name, resourceVersion, labels).

// packed is one object held in its encoded form. It never changes once
// made: readers decode it concurrently and alias its bytes.
type packed struct {
	raw []byte
	// vals holds the object's values of each declared index (other than
	// NamespaceIndex), computed when it was stored; nil without indexers.
	vals map[string][]string
}

// rv returns the stored object's resourceVersion, aliasing p's bytes.
func (p *packed) rv() string {
	_, _, rv, ok := wire.Identity(p.raw)
	if !ok {
		return ""
	}
	return string(rv)
}

// hasRV reports whether the stored object's resourceVersion is rv.
func (p *packed) hasRV(rv string) bool {
	_, _, held, ok := wire.Identity(p.raw)
	return ok && rv != "" && string(held) == rv
}

// labels returns the stored object's labels, read in place.
func (p *packed) labels() wire.Labels { return wire.Labels(p.raw) }

// protoMarshaler and protoUnmarshaler are the generated protobuf methods of
// the types of k8s.io/api.
type protoMarshaler interface {
	Marshal() ([]byte, error)
}
type protoUnmarshaler interface {
	Unmarshal([]byte) error
}

// packer encodes and decodes the objects of one compact store. A nil
// *packer means the store keeps decoded objects. It is safe for
// concurrent use.
type packer[T Object] struct {
	elem reflect.Type // T's element type
	dec  protodec.Decoder
	plan bool // dec handles the type; else its Unmarshal method does
	// gvk is the TypeMeta of the objects stored, set on each decoded
	// object: the encoding does not carry it. Set from the first object
	// that has one.
	gvk atomic.Pointer[schema.GroupVersionKind]
}

// newPacker returns the packer of T, or nil when T stays decoded: types
// without a protobuf encoding (custom resources' Go types, unstructured
// objects), and PartialObjectMetadata, whose decoded form (its label and
// annotation maps shared between objects) is about as small as its
// encoding, so packing it would add a decode per read and an encode per
// event for nothing.
func newPacker[T Object]() *packer[T] {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct || t.Elem() == reflect.TypeFor[metav1.PartialObjectMetadata]() {
		return nil
	}
	if !t.Implements(reflect.TypeFor[protoMarshaler]()) || !t.Implements(reflect.TypeFor[protoUnmarshaler]()) {
		return nil
	}
	p := &packer[T]{elem: t.Elem()}
	p.plan = p.dec.Plannable(p.elem)
	return p
}

// pack encodes obj, computing its index values with idx.
func (p *packer[T]) pack(obj T, idx map[string]IndexFunc[T]) (*packed, error) {
	raw, err := any(obj).(protoMarshaler).Marshal()
	if err != nil {
		return nil, fmt.Errorf("encoding %s for the compact cache: %w", KeyOf(obj), err)
	}
	if p.gvk.Load() == nil {
		if gvk := obj.GetObjectKind().GroupVersionKind(); !gvk.Empty() {
			p.gvk.CompareAndSwap(nil, &gvk)
		}
	}
	pk := &packed{raw: raw}
	for name, fn := range idx {
		if fn == nil {
			continue
		}
		if pk.vals == nil {
			pk.vals = make(map[string][]string, len(idx))
		}
		pk.vals[name] = fn(obj)
	}
	return pk, nil
}

// unpack decodes pk into a new object that nothing else holds.
func (p *packer[T]) unpack(pk *packed) T {
	obj := reflect.New(p.elem).Interface().(T)
	// The bytes were made by Marshal from an object that was valid, so
	// decoding them cannot fail short of a bug in a codec (protodec's
	// differential tests hold it to the generated decoder); the error is
	// therefore not passed on, and what was decoded is handed out.
	if p.plan {
		// The strings view pk's bytes, which never change: a read
		// allocates only the object's structs, slices and maps.
		_, _ = p.dec.Unmarshal(pk.raw, obj, protodec.Alias{})
	} else {
		_ = any(obj).(protoUnmarshaler).Unmarshal(pk.raw)
	}
	if gvk := p.gvk.Load(); gvk != nil {
		obj.GetObjectKind().SetGroupVersionKind(*gvk)
	}
	return obj
}

// stub returns a new object holding only k and resourceVersion rv: what a
// watch is handed for an object the compact store already holds at rv.
func (p *packer[T]) stub(k Key, rv string) T {
	obj := reflect.New(p.elem).Interface().(T)
	obj.SetNamespace(k.Namespace)
	obj.SetName(k.Name)
	obj.SetResourceVersion(rv)
	return obj
}
