package protodec

import (
	"encoding/binary"
	"io"
	"math"
	"reflect"
	"sync"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubego/kubego/internal/codec/layout"
	"github.com/kubego/kubego/internal/codec/wire"
)

// Sharer supplies shared values while a message is decoded. Unmarshal
// calls it from its own goroutine only, and never after it returns; a
// Sharer used by several goroutines must be handed to one Unmarshal call at
// a time (internal/codec/dedup's Session is: it holds its table's lock).
//
// Every call names its site: the field being decoded, as a small number
// dense from 0 that is the same for every value of that field decoded by
// one Decoder (two Decoders may number their fields differently). A
// Sharer may use it to learn which fields have values worth sharing;
// nothing else may depend on it.
type Sharer interface {
	// ShareBytes returns a string equal to b. It must not keep b, unless
	// the bytes given to Unmarshal never change (see [Alias]).
	ShareBytes(site uint32, b []byte) string
	// SharedMap returns a map of type t equal to the one encoded by raw
	// (every entry of one map field, tags included), if it holds one.
	SharedMap(site uint32, t reflect.Type, raw []byte) (reflect.Value, bool)
	// KeepMap offers m, decoded from raw, for later SharedMap calls; it
	// follows the SharedMap call for the same site and raw that found
	// nothing. It must copy raw if it keeps it. m is never modified
	// afterwards.
	KeepMap(site uint32, t reflect.Type, raw []byte, m reflect.Value)
}

// Decoder decodes protobuf messages into Go structs by plan. The zero value
// is ready to use; a Decoder is safe for concurrent use and should be long
// lived, since it keeps the plans it makes.
type Decoder struct {
	plans   sync.Map // reflect.Type → *msg, or error
	planner planner
}

// Unmarshal decodes the protobuf message b into obj, a non-nil pointer to a
// struct with protobuf tags, after zeroing it. handled is false, and obj
// untouched, when obj's type cannot be planned: decode it with its own
// Unmarshal method instead. With a non-nil Sharer, strings and maps may be
// shared with other objects, so the result must then never be modified.
// Errors are those of malformed input; the generated Unmarshal method
// fails on exactly the same inputs.
func (d *Decoder) Unmarshal(b []byte, obj any, s Sharer) (handled bool, err error) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return false, nil
	}
	m := d.planOf(v.Type().Elem())
	if m == nil {
		return false, nil
	}
	v.Elem().SetZero()
	st := state{s: s}
	_, st.own = s.(Own)
	return true, st.message(m, v.UnsafePointer(), b)
}

// Plannable reports whether Unmarshal handles values of struct type t.
func (d *Decoder) Plannable(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && d.planOf(t) != nil
}

func (d *Decoder) planOf(t reflect.Type) *msg {
	if v, ok := d.plans.Load(t); ok {
		m, _ := v.(*msg)
		return m
	}
	m, err := d.planner.plan(t)
	if err != nil {
		d.plans.Store(t, err)
		return nil
	}
	d.plans.Store(t, m)
	return m
}

// state is one Unmarshal call.
type state struct {
	s Sharer
	// own is set when the message's bytes are the result's alone (Own):
	// []byte fields view them.
	own bool
}

func (st *state) str(f *field, b []byte) string {
	if st.s == nil || f.fresh || len(b) == 0 {
		return string(b)
	}
	return st.s.ShareBytes(f.site, b)
}

// message decodes b into the struct of plan m at p.
func (st *state) message(m *msg, p unsafe.Pointer, b []byte) error {
	var sharedMaps uint64 // bit n: the map of field n is shared, copy before adding
	for i := 0; i < len(b); {
		start := i
		tag, j, err := wire.ReadVarint(b, i)
		if err != nil {
			return err
		}
		num, wt := int32(tag>>3), int(tag&7)
		if wt == wire.EndGroup {
			return wire.ErrEndGroup
		}
		if num <= 0 {
			return wire.ErrIllegalTag
		}
		var f *field
		if int(num) < len(m.byNum) {
			f = m.byNum[num]
		}
		if f == nil {
			if i, err = wire.Skip(b, start); err != nil {
				return err
			}
			continue
		}
		fp := unsafe.Add(p, f.off)
		switch {
		case f.mapType != nil:
			i, err = st.mapField(f, fp, b, start, j, wt, &sharedMaps)
		case f.rep:
			i, err = st.repeated(f, fp, b, start, j, wt)
		default:
			i, err = st.value(f, fp, b, j, wt)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// into decodes the message b into the value of plan m at p, merging like
// the generated methods do.
func (st *state) into(m *msg, p unsafe.Pointer, b []byte) error {
	if !m.opaque {
		return st.message(m, p, b)
	}
	if m.nilInit && *(*unsafe.Pointer)(p) == nil {
		v := reflect.NewAt(m.typ, p).Elem()
		if m.typ.Kind() == reflect.Slice {
			v.Set(reflect.MakeSlice(m.typ, 0, 0))
		} else {
			v.Set(reflect.MakeMap(m.typ))
		}
	}
	var err error
	switch m.typ {
	case timeType: // the most common opaque types, called directly
		err = (*metav1.Time)(p).Unmarshal(b)
	case quantityType:
		err = (*resource.Quantity)(p).Unmarshal(b)
	default:
		err = reflect.NewAt(m.typ, p).Interface().(unmarshaler).Unmarshal(b)
	}
	if err != nil {
		return err
	}
	if m.quantity && st.s != nil {
		// Fill the canonical string now: String() on a shared Quantity
		// would otherwise write it lazily while others read.
		_ = (*resource.Quantity)(p).String()
	}
	return nil
}

// value decodes one value of f (wire type wt, starting at b[i:]) into the
// slot at p and returns the index after it.
func (st *state) value(f *field, p unsafe.Pointer, b []byte, i, wt int) (int, error) {
	if wt != f.kind.wire() {
		return 0, wire.ErrWireType
	}
	switch f.kind {
	case kString:
		s, e, err := wire.ReadLength(b, i)
		if err != nil {
			return 0, err
		}
		str := st.str(f, b[s:e])
		if f.ptr {
			np := new(string)
			*np = str
			*(*unsafe.Pointer)(p) = unsafe.Pointer(np)
		} else {
			*(*string)(p) = str
		}
		return e, nil
	case kBytes:
		s, e, err := wire.ReadLength(b, i)
		if err != nil {
			return 0, err
		}
		if f.ptr {
			np := new([]byte)
			*(*unsafe.Pointer)(p) = unsafe.Pointer(np)
			p = unsafe.Pointer(np)
		}
		bp := (*[]byte)(p)
		switch {
		case st.own && e > s:
			*bp = b[s:e:e]
		default:
			*bp = append((*bp)[:0], b[s:e]...)
			if *bp == nil {
				*bp = []byte{}
			}
		}
		return e, nil
	case kMsg:
		s, e, err := wire.ReadLength(b, i)
		if err != nil {
			return 0, err
		}
		if f.ptr {
			if *(*unsafe.Pointer)(p) == nil {
				*(*unsafe.Pointer)(p) = reflect.New(f.typ).UnsafePointer()
			}
			p = *(*unsafe.Pointer)(p)
		}
		return e, st.into(f.msg, p, b[s:e])
	}
	v, e, err := scalarAt(f.kind, b, i)
	if err != nil {
		return 0, err
	}
	if f.ptr {
		np := newScalar(f)
		*(*unsafe.Pointer)(p) = np
		p = np
	}
	storeScalar(f.kind, p, v)
	return e, nil
}

// scalarAt reads a scalar of kind k at b[i:].
func scalarAt(k kind, b []byte, i int) (uint64, int, error) {
	switch k {
	case kFloat64:
		if i+8 > len(b) {
			return 0, 0, io.ErrUnexpectedEOF
		}
		return binary.LittleEndian.Uint64(b[i:]), i + 8, nil
	case kFloat32:
		if i+4 > len(b) {
			return 0, 0, io.ErrUnexpectedEOF
		}
		return uint64(binary.LittleEndian.Uint32(b[i:])), i + 4, nil
	}
	return wire.ReadVarint(b, i)
}

// newScalar allocates a scalar of f's type. Named scalar types have the
// layout (and the pointer-free memory) of their kind.
func newScalar(f *field) unsafe.Pointer {
	switch f.kind {
	case kBool:
		return unsafe.Pointer(new(bool))
	case kInt32, kUint32, kFloat32:
		return unsafe.Pointer(new(int32))
	case kInt64, kUint64, kFloat64, kInt:
		return unsafe.Pointer(new(int64))
	}
	return reflect.New(f.typ).UnsafePointer()
}

func storeScalar(k kind, p unsafe.Pointer, v uint64) {
	switch k {
	case kBool:
		*(*bool)(p) = v != 0
	case kInt32:
		*(*int32)(p) = int32(v)
	case kInt64:
		*(*int64)(p) = int64(v)
	case kInt:
		*(*int)(p) = int(v)
	case kUint32:
		*(*uint32)(p) = uint32(v)
	case kUint64:
		*(*uint64)(p) = v
	case kFloat64:
		*(*float64)(p) = math.Float64frombits(v)
	case kFloat32:
		*(*float32)(p) = math.Float32frombits(uint32(v))
	}
}

// repeated decodes one occurrence of repeated field f (one element, or a
// packed run of scalars) whose tag starts at b[start:].
func (st *state) repeated(f *field, p unsafe.Pointer, b []byte, start, i, wt int) (int, error) {
	el := f.elem
	if el.kind.scalar() && wt == wire.Bytes {
		s, e, err := wire.ReadLength(b, i)
		if err != nil {
			return 0, err
		}
		reserve(f, p, packedCount(el.kind, b[s:e]))
		j := s
		for j < e {
			v, k, err := scalarAt(el.kind, b, j)
			if err != nil {
				return 0, err
			}
			storeScalar(el.kind, next(f, p), v)
			j = k
		}
		return j, nil
	}
	if wt != el.kind.wire() {
		return 0, wire.ErrWireType
	}
	if h := (*layout.Slice)(p); h.Len == h.Cap {
		reserve(f, p, count(b, start, f.num))
	}
	return st.value(el, next(f, p), b, i, wt)
}

// packedCount is how many scalars of kind k the packed bytes b hold.
func packedCount(k kind, b []byte) int {
	switch k {
	case kFloat64:
		return len(b) / 8
	case kFloat32:
		return len(b) / 4
	}
	n := 0
	for _, c := range b {
		if c < 0x80 {
			n++
		}
	}
	return n
}

// count is how many fields numbered num follow each other from b[i:] (at
// least one: the caller has met one there). Encoders write the elements of
// a repeated field together; elements written apart just grow the slice
// again.
func count(b []byte, i int, num int32) int {
	n := 0
	for i < len(b) {
		tag, _, err := wire.ReadVarint(b, i)
		if err != nil || int32(tag>>3) != num {
			break
		}
		n++
		if i, err = wire.Skip(b, i); err != nil {
			break
		}
	}
	return max(n, 1)
}

// reserve makes room for n more elements in the slice of f at p.
func reserve(f *field, p unsafe.Pointer, n int) {
	h := (*layout.Slice)(p)
	if n <= 0 || h.Cap-h.Len >= n {
		return
	}
	ns := reflect.MakeSlice(f.sliceType, h.Len, h.Len+n)
	if h.Len == 0 { // the usual case: no copy
		*(*unsafe.Pointer)(p) = ns.UnsafePointer()
		h.Cap = h.Len + n
		return
	}
	sv := reflect.NewAt(f.sliceType, p).Elem()
	reflect.Copy(ns, sv)
	sv.Set(ns)
}

// next appends a zero element to the slice of f at p and returns it.
func next(f *field, p unsafe.Pointer) unsafe.Pointer {
	h := (*layout.Slice)(p)
	if h.Len == h.Cap {
		reserve(f, p, max(h.Len, 4))
	}
	e := unsafe.Add(h.Data, uintptr(h.Len)*f.elemSize)
	h.Len++
	return e
}

// mapField decodes the map entry whose tag starts at b[start:] or, when
// sharing, the whole run of entries of f starting there.
func (st *state) mapField(f *field, p unsafe.Pointer, b []byte, start, i, wt int, shared *uint64) (int, error) {
	if wt != wire.Bytes {
		return 0, wire.ErrWireType
	}
	var bit uint64
	if f.num < 64 {
		bit = 1 << f.num
	}
	mv := func() reflect.Value { return reflect.NewAt(f.mapType, p).Elem() }
	if st.s != nil && bit != 0 && *(*unsafe.Pointer)(p) == nil {
		if end, n, ok := mapRun(b, start, f.num); ok {
			raw := b[start:end]
			if v, ok := st.s.SharedMap(f.site, f.mapType, raw); ok {
				mv().Set(v)
				*shared |= bit
				return end, nil
			}
			makeMap(f, p, n)
			for k := start; k < end; {
				_, j, _ := wire.ReadVarint(b, k) // mapRun read these already
				s, e, _ := wire.ReadLength(b, j)
				if err := st.entry(f, p, b, s, e); err != nil {
					return 0, err
				}
				k = e
			}
			// A copy of the map value, not the addressable field: the
			// table must hold the map, not this object.
			st.s.KeepMap(f.site, f.mapType, raw, reflect.ValueOf(mv().Interface()))
			*shared |= bit
			return end, nil
		}
	}
	if *shared&bit != 0 {
		// More entries for a map taken shared (entries of one map
		// split by other fields): give this object its own copy.
		old := mv()
		cp := reflect.MakeMapWithSize(f.mapType, old.Len()+1)
		for it := old.MapRange(); it.Next(); {
			cp.SetMapIndex(it.Key(), it.Value())
		}
		old.Set(cp)
		*shared &^= bit
	}
	s, e, err := wire.ReadLength(b, i)
	if err != nil {
		return 0, err
	}
	if *(*unsafe.Pointer)(p) == nil {
		makeMap(f, p, 0)
	}
	return e, st.entry(f, p, b, s, e)
}

// mapRun returns the end of the run of well-formed fields numbered num
// that starts at b[start:] and its length, when no other field numbered num
// follows in the message (so the run is the whole map).
func mapRun(b []byte, start int, num int32) (end, n int, ok bool) {
	end = start
	for end < len(b) {
		tag, j, err := wire.ReadVarint(b, end)
		if err != nil || int32(tag>>3) != num {
			break
		}
		if tag&7 != wire.Bytes {
			return 0, 0, false
		}
		_, e, err := wire.ReadLength(b, j)
		if err != nil {
			return 0, 0, false
		}
		end, n = e, n+1
	}
	for i := end; i < len(b); {
		tag, _, err := wire.ReadVarint(b, i)
		if err != nil {
			return 0, 0, false
		}
		if int32(tag>>3) == num {
			return 0, 0, false
		}
		if i, err = wire.Skip(b, i); err != nil {
			return 0, 0, false
		}
	}
	return end, n, n > 0
}

func makeMap(f *field, p unsafe.Pointer, n int) {
	switch f.mapFast {
	case mapStrings:
		*(*map[string]string)(p) = make(map[string]string, n)
	case mapResources:
		*(*corev1.ResourceList)(p) = make(corev1.ResourceList, n)
	default:
		reflect.NewAt(f.mapType, p).Elem().Set(reflect.MakeMapWithSize(f.mapType, n))
	}
}

// entry decodes the map entry b[s:e] into the map of f at p. Like the
// generated methods, it reads key and value whatever their wire type says
// and checks their lengths against the whole message.
func (st *state) entry(f *field, p unsafe.Pointer, b []byte, s, e int) error {
	var (
		key  string
		keyV reflect.Value
		valV reflect.Value
		q    resource.Quantity
		sval string
	)
	if f.mapFast == mapReflect {
		valV = reflect.New(f.val.typ).Elem()
		if f.val.kind == kBytes && !f.val.ptr {
			valV.SetBytes([]byte{}) // the generated default
		}
	}
	for i := s; i < e; {
		pre := i
		tag, j, err := wire.ReadVarint(b, i)
		if err != nil {
			return err
		}
		i = j
		switch int32(tag >> 3) {
		case 1:
			ks, ke, err := wire.ReadLength(b, i)
			if err != nil {
				return err
			}
			key, i = st.str(f.key, b[ks:ke]), ke
		case 2:
			switch f.mapFast {
			case mapStrings:
				vs, ve, err := wire.ReadLength(b, i)
				if err != nil {
					return err
				}
				sval, i = st.str(f.val, b[vs:ve]), ve
			case mapResources:
				vs, ve, err := wire.ReadLength(b, i)
				if err != nil {
					return err
				}
				q = resource.Quantity{}
				if err := q.Unmarshal(b[vs:ve]); err != nil {
					return err
				}
				i = ve
			default:
				valV.SetZero()
				if i, err = st.value(f.val, valV.Addr().UnsafePointer(), b, i, f.val.kind.wire()); err != nil {
					return err
				}
			}
		default:
			n, err := wire.Skip(b, pre)
			if err != nil {
				return err
			}
			if n > e {
				return io.ErrUnexpectedEOF
			}
			i = n
		}
	}
	switch f.mapFast {
	case mapStrings:
		(*(*map[string]string)(p))[key] = sval
	case mapResources:
		if st.s != nil {
			_ = q.String()
		}
		(*(*corev1.ResourceList)(p))[corev1.ResourceName(key)] = q
	default:
		keyV = reflect.New(f.key.typ).Elem()
		keyV.SetString(key)
		reflect.NewAt(f.mapType, p).Elem().SetMapIndex(keyV, valV)
	}
	return nil
}
