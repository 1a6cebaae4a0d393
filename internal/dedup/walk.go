package dedup

import (
	"hash/maphash"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
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
	building bool  // planFor is still filling it in (a recursive type)
	elem     *plan // actPtr, actSlice
	fields   []fieldPlan
}

type fieldPlan struct {
	index int
	p     *plan
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
	p := &plan{building: true}
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
				p.fields = append(p.fields, fieldPlan{index: i, p: fp})
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
				p.act = actSlice
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

// walk visits v, which is addressable, by plan p.
func (t *Table) walk(v reflect.Value, p *plan) {
	switch p.act {
	case actString:
		if s := v.String(); s != "" {
			v.SetString(t.String(s))
		}
	case actStruct:
		t.walkStruct(v, p)
	case actPtr:
		if !v.IsNil() {
			t.walk(v.Elem(), p.elem)
		}
	case actSlice:
		for i := range v.Len() {
			t.walk(v.Index(i), p.elem)
		}
	case actStringMap:
		if !v.IsNil() {
			m := v.Interface().(map[string]string)
			if c := t.StringMap(m); !sameMap(c, m) {
				v.Set(reflect.ValueOf(c))
			}
		}
	case actResourceList:
		if !v.IsNil() {
			m := v.Interface().(corev1.ResourceList)
			if c := t.ResourceList(m); !sameMap(c, m) {
				v.Set(reflect.ValueOf(c))
			}
		}
	case actKindMap, actQuantityMap:
		t.reflectMap(v, p.act == actQuantityMap)
	case actQuantity:
		_ = v.Addr().Interface().(*resource.Quantity).String()
	}
}

func (t *Table) walkStruct(v reflect.Value, p *plan) {
	for _, f := range p.fields {
		t.walk(v.Field(f.index), f.p)
	}
}

// sameMap reports whether two maps are the same map (not merely equal).
func sameMap[M ~map[K]V, K comparable, V any](a, b M) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// ResourceList returns a list equal to m, shared with earlier calls when an
// equal list was seen (same names, same canonical quantities, same
// formats). Every Quantity's canonical string is fixed first, so String on
// the result never writes. m must be held by nobody else.
func (t *Table) ResourceList(m corev1.ResourceList) corev1.ResourceList {
	if m == nil {
		return m
	}
	var h uint64
	for k, q := range m {
		s := q.String()
		m[k] = q // keep the computed string
		if len(m) <= MaxMapEntries {
			h += mix(maphash.String(t.seed, string(k)), maphash.String(t.seed, s)+uint64(len(q.Format)))
		}
	}
	if len(m) > MaxMapEntries {
		return m
	}
	key := mapKey{t: resourceListType, h: h}
	if c, ok := t.maps.get(key); ok {
		if cm := c.Interface().(corev1.ResourceList); equalQuantities(cm, m) {
			return cm
		}
		return m
	}
	for k, q := range m {
		m[corev1.ResourceName(t.String(string(k)))] = q
	}
	t.maps.put(key, reflect.ValueOf(m))
	return m
}

func equalQuantities(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, qa := range a {
		qb, ok := b[k]
		if !ok || qa.Format != qb.Format || qa.String() != qb.String() {
			return false
		}
	}
	return true
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
	keyType, elemType := v.Type().Key(), v.Type().Elem()
	for it := v.MapRange(); it.Next(); {
		k := reflect.ValueOf(t.String(it.Key().String())).Convert(keyType)
		e := it.Value()
		if !quantities {
			e = reflect.ValueOf(t.String(e.String())).Convert(elemType)
		}
		v.SetMapIndex(k, e)
	}
	t.maps.put(key, reflect.ValueOf(v.Interface()))
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
