package dedup

import (
	"hash/maphash"
	"maps"
	"reflect"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubego/kubego/internal/codec/layout"
)

// action says what the walker does with a value of one type.
type action uint8

const (
	actNone         action = iota // nothing to share inside
	actString                     // share the string
	actStruct                     // visit the fields in plan.fields
	actPtr                        // visit *p
	actSlice                      // visit every element
	actStringMap                  // map[string]string: share the map
	actKindMap                    // other map of string-kind keys and values
	actResourceList               // corev1.ResourceList: share the map
	actQuantityMap                // other map of string-kind keys to Quantity
	actQuantity                   // fix the canonical string
)

// plan is how to walk one type; plans are built once per type and table.
type plan struct {
	act      action
	building bool         // planFor is still filling it in (a recursive type)
	typ      reflect.Type // the type walked
	elem     *plan        // actPtr, actSlice
	elemSize uintptr      // actSlice
	fields   []fieldPlan  // actStruct
}

type fieldPlan struct {
	off uintptr
	p   *plan
}

// perObject are the ObjectMeta fields that differ between any two objects:
// sharing them gains nothing and would crowd out the values that recur.
var perObject = map[string]bool{"Name": true, "UID": true, "ResourceVersion": true, "SelfLink": true}

// planFor returns the plan of t, or nil when values of t hold nothing to
// share. Recursive types get a plan that refers to itself.
func (t *Table) planFor(typ reflect.Type) *plan {
	if p, ok := t.plans[typ]; ok {
		if p.act == actNone && !p.building {
			return nil
		}
		return p
	}
	p := &plan{building: true, typ: typ}
	t.plans[typ] = p // visible to recursive references while it is built
	defer func() { p.building = false }()
	switch {
	case typ == quantityType:
		p.act = actQuantity
	case typ.Kind() == reflect.String:
		p.act = actString
	case typ.Kind() == reflect.Struct:
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() || (typ == objectMetaTyp && perObject[f.Name]) {
				continue
			}
			if fp := t.planFor(f.Type); fp != nil {
				p.fields = append(p.fields, fieldPlan{off: f.Offset, p: fp})
			}
		}
		if len(p.fields) > 0 {
			p.act = actStruct
		}
	case typ.Kind() == reflect.Pointer:
		if p.elem = t.planFor(typ.Elem()); p.elem != nil {
			p.act = actPtr
		}
	case typ.Kind() == reflect.Slice:
		if typ.Elem().Kind() != reflect.Uint8 {
			if p.elem = t.planFor(typ.Elem()); p.elem != nil {
				p.act, p.elemSize = actSlice, typ.Elem().Size()
			}
		}
	case typ.Kind() == reflect.Map && typ.Key().Kind() == reflect.String:
		switch {
		case typ == stringMapType:
			p.act = actStringMap
		case typ == resourceListType:
			p.act = actResourceList
		case typ.Elem().Kind() == reflect.String:
			p.act = actKindMap
		case typ.Elem() == quantityType:
			p.act = actQuantityMap
		}
	}
	if p.act == actNone {
		return nil
	}
	return p
}

var resourceListType = reflect.TypeFor[corev1.ResourceList]()

// walk visits the value of type p.typ at ptr. It works on memory, like
// the generated Unmarshal methods do: the plan was derived from the type's
// layout by reflection, and every write is a typed assignment (with the
// garbage collector's write barriers), so this is reflection without its
// per-field cost.
func (t *Table) walk(ptr unsafe.Pointer, p *plan) {
	switch p.act {
	case actString:
		if sp := (*string)(ptr); *sp != "" {
			*sp = t.shareString(*sp)
		}
	case actStruct:
		for _, f := range p.fields {
			fp := unsafe.Add(ptr, f.off)
			if f.p.act == actString { // inline: most fields are strings
				if s := (*string)(fp); *s != "" {
					*s = t.shareString(*s)
				}
				continue
			}
			t.walk(fp, f.p)
		}
	case actPtr:
		if q := *(*unsafe.Pointer)(ptr); q != nil {
			t.walk(q, p.elem)
		}
	case actSlice:
		h := (*layout.Slice)(ptr)
		for i := range h.Len {
			t.walk(unsafe.Add(h.Data, uintptr(i)*p.elemSize), p.elem)
		}
	case actStringMap:
		if mp := (*map[string]string)(ptr); *mp != nil {
			if c := t.shareStringMap(*mp); !layout.SameMap(c, *mp) {
				*mp = c
			}
		}
	case actResourceList:
		if mp := (*corev1.ResourceList)(ptr); *mp != nil {
			if c := t.shareResourceList(*mp); !layout.SameMap(c, *mp) {
				*mp = c
			}
		}
	case actKindMap, actQuantityMap:
		t.reflectMap(reflect.NewAt(p.typ, ptr).Elem(), p.act == actQuantityMap)
	case actQuantity:
		_ = (*resource.Quantity)(ptr).String()
	}
}

// shareResourceList returns a list equal to m, shared with earlier calls when an
// equal list was seen (same names, same canonical quantities, same
// formats). Every Quantity's canonical string is fixed first, so String on
// the result never writes. m must be held by nobody else.
func (t *Table) shareResourceList(m corev1.ResourceList) corev1.ResourceList {
	if m == nil {
		return m
	}
	if len(m) > MaxMapEntries {
		fixQuantities(m)
		return m
	}
	var (
		h       uint64
		entries [MaxMapEntries]struct {
			k resource.Quantity
			n corev1.ResourceName
			s string
		}
		n int
	)
	for k, q := range m {
		// q is a copy: String caches into it, not into m.
		e := &entries[n]
		e.n, e.k, e.s = k, q, q.String()
		h += mix(maphash.String(t.seed, string(k)), maphash.String(t.seed, e.s)+uint64(len(q.Format)))
		n++
	}
	key := mapKey{t: resourceListType, h: h}
	met, elsewhere := t.recurring(h)
	if met {
		if c, ok := t.maps.get(key); ok {
			if cm := c.Interface().(corev1.ResourceList); sameQuantities(m, cm) {
				return cm
			}
			return m // a hash collision: keep m to itself
		}
	}
	for _, e := range entries[:n] {
		// Storing the copy stores its computed string too.
		m[corev1.ResourceName(t.shareString(string(e.n)))] = e.k
	}
	if elsewhere {
		t.maps.put(key, reflect.ValueOf(m))
	}
	return m
}

// fixQuantities computes and stores the canonical string of every value of
// m, so that String on them never writes again.
func fixQuantities(m corev1.ResourceList) {
	for k, q := range m {
		_ = q.String()
		m[k] = q
	}
}

// reflectMap shares a map of a named type whose keys are of string kind and
// whose values are strings (quantities false) or resource.Quantity
// (quantities true).
func (t *Table) reflectMap(v reflect.Value, quantities bool) {
	if v.IsNil() {
		return
	}
	var h uint64
	for it := v.MapRange(); it.Next(); {
		s := mapValueText(v, it.Key(), it.Value(), quantities, true)
		h += mix(maphash.String(t.seed, it.Key().String()), maphash.String(t.seed, s))
	}
	if v.Len() > MaxMapEntries {
		return
	}
	key := mapKey{t: v.Type(), h: h}
	if c, ok := t.maps.get(key); ok {
		if c.Len() == v.Len() {
			equal := true
			for it := v.MapRange(); equal && it.Next(); {
				ce := c.MapIndex(it.Key())
				equal = ce.IsValid() && mapValueText(c, it.Key(), ce, quantities, false) == mapValueText(v, it.Key(), it.Value(), quantities, true)
			}
			if equal {
				v.Set(c)
			}
		}
		return
	}
	_, elsewhere := t.recurring(h)
	keyType, elemType := v.Type().Key(), v.Type().Elem()
	for it := v.MapRange(); it.Next(); {
		k := reflect.ValueOf(t.shareString(it.Key().String())).Convert(keyType)
		e := it.Value()
		if !quantities {
			e = reflect.ValueOf(t.shareString(e.String())).Convert(elemType)
		}
		v.SetMapIndex(k, e)
	}
	if elsewhere {
		t.maps.put(key, reflect.ValueOf(v.Interface()))
	}
}

// mapValueText returns the comparable text of value e at key k of map m.
// With write, a Quantity's canonical string is computed and stored back
// into m, so it is fixed before m is shared; a shared map is never written.
func mapValueText(m, k, e reflect.Value, quantity, write bool) string {
	if !quantity {
		return e.String()
	}
	q := e.Interface().(resource.Quantity)
	s := q.String()
	if write {
		m.SetMapIndex(k, reflect.ValueOf(q))
	}
	return s + "\x00" + string(q.Format)
}

// walkLike is walk for an object that has a previous version prev of the
// same type (an update of a cached object): values equal to prev's are
// taken from prev, found by comparing side by side instead of by hashing,
// and only what changed goes through the table.
func (t *Table) walkLike(ptr, prev unsafe.Pointer, p *plan) {
	switch p.act {
	case actString:
		sp, pp := (*string)(ptr), (*string)(prev)
		switch {
		case *sp == *pp:
			*sp = *pp
		case *sp != "":
			*sp = t.shareString(*sp)
		}
	case actStruct:
		for _, f := range p.fields {
			fp, pp := unsafe.Add(ptr, f.off), unsafe.Add(prev, f.off)
			if f.p.act == actString { // inline: most fields are strings
				s, ps := (*string)(fp), (*string)(pp)
				switch {
				case len(*s) == 0 || unsafe.StringData(*s) == unsafe.StringData(*ps):
				case *s == *ps:
					*s = *ps
				default:
					*s = t.shareString(*s)
				}
				continue
			}
			t.walkLike(fp, pp, f.p)
		}
	case actPtr:
		q, pq := *(*unsafe.Pointer)(ptr), *(*unsafe.Pointer)(prev)
		switch {
		case q == nil:
		case pq == nil:
			t.walk(q, p.elem)
		default:
			t.walkLike(q, pq, p.elem)
		}
	case actSlice:
		h, ph := (*layout.Slice)(ptr), (*layout.Slice)(prev)
		if h.Len != ph.Len {
			t.walk(ptr, p)
			return
		}
		for i := range h.Len {
			off := uintptr(i) * p.elemSize
			t.walkLike(unsafe.Add(h.Data, off), unsafe.Add(ph.Data, off), p.elem)
		}
	case actStringMap:
		mp, pm := (*map[string]string)(ptr), (*map[string]string)(prev)
		if *mp != nil && *pm != nil && maps.Equal(*mp, *pm) {
			*mp = *pm
			return
		}
		t.walk(ptr, p)
	case actResourceList:
		mp, pm := (*corev1.ResourceList)(ptr), (*corev1.ResourceList)(prev)
		if *mp != nil && *pm != nil && sameQuantities(*mp, *pm) {
			*mp = *pm
			return
		}
		t.walk(ptr, p)
	default:
		t.walk(ptr, p)
	}
}

// sameQuantities reports whether m equals shared, a list whose strings are
// fixed (so reading them does not write).
func sameQuantities(m, shared corev1.ResourceList) bool {
	if len(m) != len(shared) {
		return false
	}
	for k, q := range m {
		// Equal values in one format have one canonical string, and Cmp
		// does not allocate where String would.
		sq, ok := shared[k]
		if !ok || sq.Format != q.Format || sq.Cmp(q) != 0 {
			return false
		}
	}
	return true
}
