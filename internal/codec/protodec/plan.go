package protodec

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/internal/codec/wire"
)

// kind is how one value is read from the wire.
type kind uint8

const (
	kString kind = iota + 1
	kBytes
	kBool
	kInt32
	kInt64
	kInt
	kUint32
	kUint64
	kFloat64
	kFloat32
	kMsg // a message: planned, or opaque (its own Unmarshal)
)

// scalar reports whether values of k may be packed in repeated fields.
func (k kind) scalar() bool { return k >= kBool && k <= kFloat32 }

// wire is the wire type a non-packed value of k has.
func (k kind) wire() int {
	switch k {
	case kString, kBytes, kMsg:
		return wire.Bytes
	case kFloat64:
		return wire.Fixed64
	case kFloat32:
		return wire.Fixed32
	default:
		return wire.Varint
	}
}

// msg is the plan of one message type.
type msg struct {
	typ reflect.Type
	// opaque messages are decoded by their own Unmarshal method (types
	// whose fields carry no protobuf tags: metav1.Time, Quantity, …).
	opaque   bool
	quantity bool // resource.Quantity
	// nilInit: an opaque slice or map type, made empty before its
	// Unmarshal is called (as the generated methods do).
	nilInit bool
	byNum   []*field
}

// field is how one struct field, one slice element or one map key or
// value is decoded.
type field struct {
	name string // Go field name, for errors
	num  int32
	off  uintptr // within the struct; 0 for elements, keys and values
	kind kind
	typ  reflect.Type // the value's type (the pointee when ptr)
	ptr  bool         // the slot holds a pointer to the value
	msg  *msg         // kMsg
	// fresh strings are never shared: they differ between any two
	// objects (metadata name, uid, resourceVersion).
	fresh bool
	// site names this field to a Sharer: dense from 0, one per field of
	// the Decoder's plans.
	site uint32

	rep       bool         // a repeated field: elem describes one element
	elem      *field       // rep
	sliceType reflect.Type // rep
	elemSize  uintptr      // rep

	mapType  reflect.Type // a map field: key and val describe an entry
	key, val *field
	mapFast  mapFast
}

// mapFast names the map types decoded without reflection.
type mapFast uint8

const (
	mapReflect   mapFast = iota
	mapStrings           // map[string]string
	mapResources         // corev1.ResourceList
)

type unmarshaler interface{ Unmarshal([]byte) error }

var (
	unmarshalerType  = reflect.TypeFor[unmarshaler]()
	typeMetaType     = reflect.TypeFor[metav1.TypeMeta]()
	objectMetaType   = reflect.TypeFor[metav1.ObjectMeta]()
	quantityType     = reflect.TypeFor[resource.Quantity]()
	timeType         = reflect.TypeFor[metav1.Time]()
	stringMapType    = reflect.TypeFor[map[string]string]()
	resourceListType = reflect.TypeFor[corev1.ResourceList]()
	freshMetaFields  = map[string]bool{"Name": true, "UID": true, "ResourceVersion": true, "SelfLink": true}
	errNotPlannable  = fmt.Errorf("protodec: type cannot be planned")
)

// planner builds plans; Decoder holds one behind a mutex.
type planner struct {
	mu    sync.Mutex
	msgs  map[reflect.Type]*msg
	fails map[reflect.Type]error
	sites uint32 // the next field's site
}

// newField returns a field with the next site.
func (p *planner) newField() *field {
	f := &field{site: p.sites}
	p.sites++
	return f
}

// plan returns the plan of struct type t, or an error when t (or a type it
// holds) cannot be planned.
func (p *planner) plan(t reflect.Type) (*msg, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.msgs == nil {
		p.msgs, p.fails = map[reflect.Type]*msg{}, map[reflect.Type]error{}
	}
	if err := p.fails[t]; err != nil {
		return nil, err
	}
	building := map[reflect.Type]*msg{}
	m, err := p.message(t, building)
	if err == nil && m.opaque {
		err = fmt.Errorf("%w: %s decodes itself", errNotPlannable, t)
	}
	if err != nil {
		p.fails[t] = err
		return nil, err
	}
	for bt, bm := range building {
		p.msgs[bt] = bm
	}
	return m, nil
}

// message plans struct type t (or a type with its own Unmarshal).
// building holds the plans made by this call, so that recursive types
// refer to themselves and a failure leaves no half plans behind.
func (p *planner) message(t reflect.Type, building map[reflect.Type]*msg) (*msg, error) {
	if m, ok := p.msgs[t]; ok {
		return m, nil
	}
	if m, ok := building[t]; ok {
		return m, nil
	}
	if err := p.fails[t]; err != nil {
		return nil, err
	}
	m := &msg{typ: t, quantity: t == quantityType, nilInit: t.Kind() == reflect.Slice || t.Kind() == reflect.Map}
	building[t] = m
	if t.Kind() != reflect.Struct || !taggedStruct(t) {
		if !reflect.PointerTo(t).Implements(unmarshalerType) {
			return nil, fmt.Errorf("%w: %s has neither protobuf tags nor an Unmarshal method", errNotPlannable, t)
		}
		m.opaque = true
		return m, nil
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("protobuf")
		if !ok {
			continue // TypeMeta: taggedStruct allowed only that
		}
		f, err := p.field(sf.Type, tag, sf.Tag, building)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t, sf.Name, err)
		}
		f.name, f.off = sf.Name, sf.Offset
		if t == objectMetaType && freshMetaFields[sf.Name] {
			f.fresh = true
		}
		for int(f.num) >= len(m.byNum) {
			m.byNum = append(m.byNum, nil)
		}
		if m.byNum[f.num] != nil {
			return nil, fmt.Errorf("%w: %s: field number %d used twice", errNotPlannable, t, f.num)
		}
		m.byNum[f.num] = f
	}
	return m, nil
}

// taggedStruct reports whether every field of struct t is exported and
// carries a protobuf tag, TypeMeta (which travels outside the message)
// excepted.
func taggedStruct(t reflect.Type) bool {
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			return false
		}
		tag, ok := sf.Tag.Lookup("protobuf")
		if !ok && sf.Type == typeMetaType {
			continue
		}
		if !ok || tag == "-" {
			return false
		}
	}
	return true
}

// tagInfo is what a protobuf struct tag says.
type tagInfo struct {
	wire string
	num  int32
	rep  bool
}

func parseTag(tag string) (tagInfo, error) {
	parts := strings.Split(tag, ",")
	if len(parts) < 3 {
		return tagInfo{}, fmt.Errorf("%w: tag %q", errNotPlannable, tag)
	}
	n, err := strconv.ParseInt(parts[1], 10, 32)
	if err != nil || n <= 0 {
		return tagInfo{}, fmt.Errorf("%w: tag %q", errNotPlannable, tag)
	}
	return tagInfo{wire: parts[0], num: int32(n), rep: parts[2] == "rep"}, nil
}

// field plans one struct field of type t with protobuf tag tag.
func (p *planner) field(t reflect.Type, tag string, all reflect.StructTag, building map[reflect.Type]*msg) (*field, error) {
	ti, err := parseTag(tag)
	if err != nil {
		return nil, err
	}
	_ = all
	f := p.newField()
	f.num = ti.num
	switch {
	case t.Kind() == reflect.Map && !reflect.PointerTo(t).Implements(unmarshalerType):
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("%w: map %s", errNotPlannable, t)
		}
		f.mapType = t
		f.key = p.newField()
		f.key.kind, f.key.typ = kString, t.Key()
		var err error
		if f.val, err = p.value(t.Elem(), building); err != nil {
			return nil, err
		}
		if f.val.ptr {
			return nil, fmt.Errorf("%w: map of pointers %s", errNotPlannable, t)
		}
		switch t {
		case stringMapType:
			f.mapFast = mapStrings
		case resourceListType:
			f.mapFast = mapResources
		}
		return f, nil
	case t.Kind() == reflect.Slice && !(ti.wire == "bytes" && t.Elem().Kind() == reflect.Uint8) && !reflect.PointerTo(t).Implements(unmarshalerType):
		// A slice is a repeated field whatever the tag says ("opt" on
		// []KeyUsage); a named slice with its own Unmarshal (Verbs) is a
		// message.
		f.rep, f.sliceType, f.elemSize = true, t, t.Elem().Size()
		if f.elem, err = p.value(t.Elem(), building); err != nil {
			return nil, err
		}
		f.kind = f.elem.kind
		return f, nil
	}
	v, err := p.value(t, building)
	if err != nil {
		return nil, err
	}
	v.num = ti.num
	return v, nil
}

// wireOf is the wire type of a map value of type t (map fields carry no
// tag for their values).
func wireOf(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int32, reflect.Int64, reflect.Int, reflect.Uint32, reflect.Uint64:
		return "varint"
	case reflect.Float64:
		return "fixed64"
	case reflect.Float32:
		return "fixed32"
	}
	return "bytes"
}

// value plans a value of type t (a pointer to one allowed). Its wire type
// follows from its Go type: the wire names in struct tags are not always
// right (DefaultMode *int32 says "bytes"), the generator went by the type.
func (p *planner) value(t reflect.Type, building map[reflect.Type]*msg) (*field, error) {
	f := p.newField()
	if t.Kind() == reflect.Pointer {
		f.ptr, t = true, t.Elem()
	}
	f.typ = t
	onWire := wireOf(t)
	bad := func() (*field, error) {
		return nil, fmt.Errorf("%w: %s on wire %q", errNotPlannable, t, onWire)
	}
	switch onWire {
	case "bytes":
		switch {
		case t.Kind() == reflect.String:
			f.kind = kString
		case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(t).Implements(unmarshalerType):
			f.kind = kBytes
		default:
			m, err := p.message(t, building)
			if err != nil {
				return nil, err
			}
			f.kind, f.msg = kMsg, m
		}
	case "varint":
		switch t.Kind() {
		case reflect.Bool:
			f.kind = kBool
		case reflect.Int32:
			f.kind = kInt32
		case reflect.Int64:
			f.kind = kInt64
		case reflect.Int:
			f.kind = kInt
		case reflect.Uint32:
			f.kind = kUint32
		case reflect.Uint64:
			f.kind = kUint64
		default:
			return bad()
		}
	case "fixed64":
		if t.Kind() != reflect.Float64 {
			return bad()
		}
		f.kind = kFloat64
	case "fixed32":
		if t.Kind() != reflect.Float32 {
			return bad()
		}
		f.kind = kFloat32
	default:
		return bad()
	}
	return f, nil
}
