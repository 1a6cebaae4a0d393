package informer

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"unsafe"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubego/kubego/internal/codec/protodec"
	"github.com/kubego/kubego/internal/codec/wire"
)

// A compact store keeps each object as its protobuf encoding (a packed
// entry) and decodes it on every read, so every reader gets an object of
// its own. What a read must answer without decoding is computed when the
// object is stored (the values of declared indexes) or read in place from
// the bytes (namespace, name, resourceVersion, labels).

// prepared is an encoded object with its values of the declared indexes
// (other than NamespaceIndex), computed when it was encoded; vals is nil
// without indexers.
type prepared struct {
	pk   packed
	vals map[string][]string
}

// rv returns the stored object's resourceVersion, aliasing p's bytes.
func (p packed) rv() string {
	_, _, rv, ok := wire.Identity(p.raw())
	if !ok {
		return ""
	}
	return string(rv)
}

// hasRV reports whether the stored object's resourceVersion is rv.
func (p packed) hasRV(rv string) bool {
	_, _, held, ok := wire.Identity(p.raw())
	return ok && rv != "" && string(held) == rv
}

// key returns the stored object's namespace and name, viewing p's bytes.
// The encoding was made by Marshal, which writes fields in ascending
// order: metadata first, and in it name (1) and namespace (3) before the
// rest.
func (p packed) key() Key {
	b := p.raw()
	var meta []byte
	for len(b) > 0 && meta == nil {
		num, wt, val, rest, err := wire.Field(b)
		if err != nil {
			return Key{}
		}
		if num == 1 && wt == wire.Bytes {
			meta = val
		}
		b = rest
	}
	var k Key
	for len(meta) > 0 {
		num, wt, val, rest, err := wire.Field(meta)
		if err != nil || num > 3 {
			break
		}
		if wt == wire.Bytes {
			switch num {
			case 1:
				k.Name = unsafe.String(unsafe.SliceData(val), len(val))
			case 3:
				k.Namespace = unsafe.String(unsafe.SliceData(val), len(val))
			}
		}
		meta = rest
	}
	return k
}

// labels returns the stored object's labels, read in place.
func (p packed) labels() wire.Labels { return wire.Labels(p.raw()) }

// protoMarshaler and protoUnmarshaler are the generated protobuf methods of
// the types of k8s.io/api.
type protoMarshaler interface {
	Marshal() ([]byte, error)
}
type protoUnmarshaler interface {
	Unmarshal([]byte) error
}

// protoSizer is the generated pair that encodes into a buffer of the
// exact size, written back to front.
type protoSizer interface {
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
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
	// ar holds the encodings of the store this packer serves.
	ar arena
	// plainOnly keeps every encoding uncompressed (see zip.go);
	// Options.DisableCompression.
	plainOnly bool
}

// newPacker returns the packer of T, or nil when T stays decoded: types
// without a protobuf encoding (custom resources' Go types, unstructured
// objects). PartialObjectMetadata is packed like any built-in kind: its
// decoded form holds each object's label and annotation maps (about 700
// bytes for a Deployment with two unique labels), its encoding a third
// of that.
func newPacker[T Object]() *packer[T] {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	if !t.Implements(reflect.TypeFor[protoMarshaler]()) || !t.Implements(reflect.TypeFor[protoUnmarshaler]()) {
		return nil
	}
	p := &packer[T]{elem: t.Elem()}
	p.plan = p.dec.Plannable(p.elem)
	return p
}

// pack encodes obj into the arena, computing its index values with idx.
func (p *packer[T]) pack(obj T, idx map[string]IndexFunc[T]) (prepared, error) {
	pk, err := p.encode(obj, true)
	if err != nil {
		return prepared{}, err
	}
	if p.gvk.Load() == nil {
		if gvk := obj.GetObjectKind().GroupVersionKind(); !gvk.Empty() {
			p.gvk.CompareAndSwap(nil, &gvk)
		}
	}
	pr := prepared{pk: pk}
	for name, fn := range idx {
		if fn == nil {
			continue
		}
		if pr.vals == nil {
			pr.vals = make(map[string][]string, len(idx))
		}
		pr.vals[name] = fn(obj)
	}
	return pr, nil
}

// encode returns obj's encoding, placed in the arena when inArena is set
// (else in an allocation of its own, never compressed: the final state of
// a deleted object, which only handlers will read). A large encoding is
// compressed (see zip.go) unless p.plainOnly.
func (p *packer[T]) encode(obj T, inArena bool) (packed, error) {
	if m, ok := any(obj).(protoSizer); ok && inArena {
		n := m.Size()
		if n >= 0 && n < soloMin && (p.plainOnly || n < zipMin) {
			pk, w, err := func() (packed, int, error) {
				p.ar.mu.Lock()
				defer p.ar.mu.Unlock()
				pk := p.ar.alloc(n)
				w, err := m.MarshalToSizedBuffer(pk.raw())
				return pk, w, err
			}()
			if err == nil && w != n {
				err = fmt.Errorf("encoded %d bytes of %d", w, n)
			}
			if err != nil {
				return packed{}, fmt.Errorf("encoding %s for the compact cache: %w", KeyOf(obj), err)
			}
			return pk, nil
		}
		if n >= zipMin && n < 1<<31 && !p.plainOnly {
			return p.encodeZipped(obj, m, n)
		}
	}
	raw, err := any(obj).(protoMarshaler).Marshal()
	switch {
	case err != nil:
		return packed{}, fmt.Errorf("encoding %s for the compact cache: %w", KeyOf(obj), err)
	case uint64(len(raw)) >= 1<<32:
		return packed{}, fmt.Errorf("encoding %s for the compact cache: %d bytes", KeyOf(obj), len(raw))
	case !inArena:
		return solo(raw), nil
	}
	if !p.plainOnly {
		z := zippers.Get().(*zipper)
		defer z.release()
		if zipped, ok := z.squeeze(raw); ok {
			return p.place(zipped, true), nil
		}
	}
	return p.place(raw, false), nil
}

// encodeZipped encodes obj, of n bytes, into scratch room and places its
// compressed form in the arena, or its plain one when compressing saves
// too little.
func (p *packer[T]) encodeZipped(obj T, m protoSizer, n int) (packed, error) {
	z := zippers.Get().(*zipper)
	defer z.release()
	if cap(z.in) < n {
		z.in = make([]byte, n)
	}
	raw := z.in[:n]
	w, err := m.MarshalToSizedBuffer(raw)
	if err == nil && w != n {
		err = fmt.Errorf("encoded %d bytes of %d", w, n)
	}
	if err != nil {
		return packed{}, fmt.Errorf("encoding %s for the compact cache: %w", KeyOf(obj), err)
	}
	if zipped, ok := z.squeeze(raw); ok {
		return p.place(zipped, true), nil
	}
	return p.place(raw, true), nil
}

// place returns raw placed in the arena, or in an allocation of its own
// when it is soloMin bytes or more; raw is copied when it is borrowed
// (scratch room the caller reuses), and otherwise may be kept.
func (p *packer[T]) place(raw []byte, borrowed bool) packed {
	if len(raw) >= soloMin {
		if borrowed {
			raw = bytes.Clone(raw)
		}
		return solo(raw)
	}
	p.ar.mu.Lock()
	defer p.ar.mu.Unlock()
	return p.ar.copyIn(raw)
}

// indexValuesOf returns fn's values for obj, a decoding that aliases the
// arena: they are copied, so that an index value never keeps a chunk the
// store has let go.
func indexValuesOf[T Object](fn IndexFunc[T], obj T) []string {
	vals := fn(obj)
	if vals == nil {
		return nil
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = strings.Clone(v)
	}
	return out
}

// unpack decodes pk into a new object that nothing else holds.
func (p *packer[T]) unpack(pk packed) T {
	// The bytes were made by Marshal (and compression) from an object that
	// was valid, so decoding them cannot fail short of a bug in a codec
	// (protodec's differential tests hold it to the generated decoder):
	// the error is therefore not passed on, and what was decoded (at
	// least the metadata, which is never compressed) is handed out.
	obj, _ := p.decode(pk.raw())
	return obj
}

// decode decodes raw, an encoding as the store keeps it (compressed or
// not), into a new object that nothing else holds. An error is a
// *corruptError; the object then holds the metadata alone, if that decodes.
func (p *packer[T]) decode(raw []byte) (T, error) {
	b, own, err := plainOf(raw)
	var obj T
	if err == nil {
		var derr error
		if obj, derr = p.decodePlain(b, own); derr != nil {
			err = &corruptError{"decoding", derr}
		}
	}
	if err != nil {
		// Hand out the metadata at least, decoded alone: it is never
		// compressed.
		meta := reflect.New(p.elem).Interface().(T)
		if _, _, _, rest, ferr := wire.Field(raw); ferr == nil && len(rest) > 0 {
			if m, merr := p.decodePlain(raw[:len(raw)-len(rest)], false); merr == nil {
				meta = m
			}
		}
		obj = meta
	}
	if gvk := p.gvk.Load(); gvk != nil {
		obj.GetObjectKind().SetGroupVersionKind(*gvk)
	}
	return obj, err
}

// decodePlain decodes b, a plain encoding that never changes, into a new
// object. own says b is the object's alone (a buffer a compressed
// encoding was decompressed into), so that its []byte fields may view it
// too.
func (p *packer[T]) decodePlain(b []byte, own bool) (T, error) {
	obj := reflect.New(p.elem).Interface().(T)
	if p.plan {
		// The strings view the bytes, which never change (the chunk's,
		// or the buffer a compressed encoding was decompressed into,
		// which is this object's alone): a read allocates only the
		// object's structs, slices and maps, and, from a chunk, its
		// []byte values, which the object may change.
		var s protodec.Sharer = protodec.Alias{}
		if own {
			s = protodec.Own{}
		}
		_, err := p.dec.Unmarshal(b, obj, s)
		return obj, err
	}
	return obj, any(obj).(protoUnmarshaler).Unmarshal(b)
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
